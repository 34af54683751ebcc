#!/usr/bin/env bash
# Issue 51 part 1, "Calibration": the RRC depth battery (avalanche/quality/rrc/) on published
# functions whose depth tests-for-randomness (TFR, github.com/jonmaiga/tests-for-randomness)
# gives, at cap 2^24 (16 bits: 2^14, the battery's own cap for that width). One
# `bench_rrc_depth --cap 24 --json NAME=TEXT` per function (so the load average can be read
# between them); 16- and 64-bit programs carry their width as a mask (`x &= 0xffff;`), which
# the text form reads as the width. The binary is copied first, so a rebuild of BUILD_DIR
# meanwhile does not change what is measured; the script does not build (the build folder
# is shared: flock /tmp/mixforge-build.lock cmake --build BUILD_DIR --target bench_rrc_depth).
# Writes OUT_DIR/rrc-calibration.jsonl (one battery report per line, as bench_rrc_depth
# prints it, plus "width"), rrc-calibration.log (the per-length progress), rrc-calibration.run
# (where and when) and rrc-calibration.md (the table, made from those). A "## Notes" section
# already at the end of the .md (written by hand) is kept when the table is rewritten.
#
#   bench/rrc_calibration.sh BUILD_DIR [OUT_DIR]      (default OUT_DIR bench/results/quality)
#   TABLE_ONLY=1 bench/rrc_calibration.sh BUILD_DIR [OUT_DIR]   rewrites the .md from the files
#   ONLY=name1,name2 ... / CAP=N ...                  only those rows / a lower cap (checks:
#                                                      the table then has only what ran)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
[ $# -ge 1 ] || { echo "usage: bench/rrc_calibration.sh BUILD_DIR [OUT_DIR]" >&2; exit 2; }
build="$1"
out="${2:-$here/results/quality}"
cap="${CAP:-24}"
mkdir -p "$out"
jsonl="$out/rrc-calibration.jsonl"
run="$out/rrc-calibration.run"
log="$out/rrc-calibration.log"
load() { cut -d' ' -f1-3 /proc/loadavg; }

# name|width|program in short form|TFR depth|where TFR's figure comes from (and its failures).
# Short form: [a C b D c] is x ^= x >> a; x *= 0xC; x ^= x >> b; x *= 0xD; x ^= x >> c;
# a token +k is x += x << k. "published" is TFR's results/result_32.md or result_64.md
# (cap 2^35, commit e0dd974); "here at 2^24" is TFR built and run on this machine (issue 51);
# "here at 2^16": TFR e0dd974 built here (its 16-bit mixers replaced by these in a copy of
# impl/src/mixers16.h, its test callback run on each over 2^10..2^16; TFR publishes no
# 16-bit table). TFR writes '*' after a test whose meta analysis (over the streams) failed.
functions=(
  "lowbias32|32|[16 7feb352d 15 846ca68b 16]|12|TFR here at 2^24: sac"
  "splitmix32 (prospector_boost)|32|[16 21f0aaad 15 735a2d97 15]|13|published: uniform"
  "issue19-f35a2d97|32|[16 21f0aaad 15 f35a2d97 15]|13|TFR here at 2^24"
  "murmur3-fmix32|32|[16 85ebca6b 13 c2b2ae35 16]|14|published: sac*"
  "h2sql|32|[16 045d9f3b 16 045d9f3b 16]|15|published: sac*"
  "prospector|32|[15 2c1b3c6d 12 297a2d39 15]|18|published: uniform*"
  "mx2-32|32|[16 451a4535 14 451a4535 13]|18|published: uniform"
  "mx1-32|32|[16 93528a6d 14]|10|published: runs, uniform, mean*"
  "triple32|32|[17 ed5ad4bb 11 ac4c1b51 15 31848bab 14]|>24|TFR here at 2^24"
  "mx3-32|32|[16 451a4535 14 451a4535 16 451a4535 14]|27|published: uniform*"
  "mixforge-32-3round|32|[17 ad5ad4bb 11 ac4c1b51 15 b9848bab 14]|>24|TFR here at 2^24"
  "hash16_xm2|16|[8 88b5 7 db2d 9]|12|TFR here at 2^16: sac*"
  "hash16_xm3|16|[7 2993 5 e877 9 0235 10]|13|TFR here at 2^16: uniform*"
  "hash16_s6|16|[+7 8 +3 2 +4 8]|10|TFR here at 2^16: uniform"
  "issue19-16-2round|16|[8 a3d3 7 4b2d 9]|12|TFR here at 2^16: sac*"
  "issue19-16-3round|16|[11 b663 3 897d 6 ea57 8]|13|TFR here at 2^16: uniform*"
  "issue19-16-adds|16|[+4 7 +2 5 +3 4 +8 6]|13|TFR here at 2^16: uniform*"
  "mixforge-16-3round|16|[7 f2ab 5 e0f7 9 465b 10]|13|TFR here at 2^16: uniform*"
  "mx1-64|64|[32 0e9846af9b1a615d 29]|10|published: runs, uniform, mean*"
  "moremur|64|[27 3c79ac492ba7b653 33 1c69b3f74ac4ae35 27]|10|published: runs"
  "murmur3-fmix64|64|[33 ff51afd7ed558ccd 33 c4ceb9fe1a85ec53 33]|10|published: runs"
  "xxh3-avalanche|64|[37 165667919e3779f9 32]|10|published: runs, uniform, mean*"
  "fast_hash|64|[23 2127599bf4325c37 47]|10|published: runs, uniform, mean*"
  "lea64|64|[32 daba0b6eb09322e3 32 daba0b6eb09322e3 32]|14|published: sac*"
  "degski64|64|[32 d6e8feb86659fd93 32 d6e8feb86659fd93 32]|15|published: runs"
  "splitmix64|64|[30 bf58476d1ce4e5b9 27 94d049bb133111eb 31]|19|published: sac*"
  "mx2-64|64|[32 7574708ca19c768b 29 7574708ca19c768b 28]|19|published: permutation:13*"
  "mx3-64|64|[32 bea225f9eb34556d 29 bea225f9eb34556d 32 bea225f9eb34556d 29]|29|published: permutation:21*"
)
if [ -n "${ONLY:-}" ]; then
  keep=()
  for f in "${functions[@]}"; do
    case ",$ONLY," in *",${f%%|*},"*) keep+=("$f") ;; esac
  done
  functions=("${keep[@]}")
fi

# The text form of a short form at a width (the mask gives 16 and 64 bits their width).
program_text() {
  local width="$1" s="${2#[}" t text=""
  s="${s%]}"
  case "$width" in
    16) text="x &= 0xffff; " ;;
    64) text="x &= 0xffffffffffffffff; " ;;
  esac
  for t in $s; do
    case "$t" in
      +*) text+="x += x << ${t#+}; " ;;
      [0-9] | [0-9][0-9]) text+="x ^= x >> $t; " ;;
      *) text+="x *= 0x$t; " ;;
    esac
  done
  echo "${text% }"
}

if [ "${TABLE_ONLY:-0}" != 1 ]; then
  [ -x "$build/bench/bench_rrc_depth" ] || {
    echo "rrc_calibration.sh: no $build/bench/bench_rrc_depth (build it: flock /tmp/mixforge-build.lock cmake --build $build --target bench_rrc_depth)" >&2
    exit 1
  }
  frozen="$(mktemp /tmp/bench_rrc_depth.XXXXXX)"
  trap 'rm -f "$frozen"' EXIT
  cp "$build/bench/bench_rrc_depth" "$frozen" && chmod 755 "$frozen"
  commit="$(git -C "$here/.." rev-parse --short HEAD)"
  [ -z "$(git -C "$here/.." status --porcelain -- avalanche/quality/rrc avalanche/evaluator.cpp avalanche/batch_function.cpp mixer jit bench/rrc_depth.cpp)" ] ||
    commit="$commit (with uncommitted changes to the battery's sources)"
  {
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "machine: $(lscpu | sed -n 's/^Model name: *//p' | head -1), nproc $(nproc)"
    echo "load before: $(uptime)"
    echo "commit: $commit (binary $build/bench/bench_rrc_depth, $(date -u -r "$build/bench/bench_rrc_depth" +%Y-%m-%dT%H:%M:%SZ), copied before the run)"
    echo "command: bench/rrc_calibration.sh $*${ONLY:+ (ONLY=$ONLY)}"
    echo "per function: bench_rrc_depth --cap $cap --json NAME=PROGRAM_TEXT"
  } > "$run"
  : > "$jsonl"
  : > "$log"
  for f in "${functions[@]}"; do
    IFS='|' read -r name width short _ _ <<< "$f"
    text="$(program_text "$width" "$short")"
    echo "# $name ($(load))" | tee -a "$log" >&2
    echo "load $name: $(load)" >> "$run"
    "$frozen" --cap "$cap" --json "$name=$text" 2>> "$log" |
      python3 -c 'import json,sys; [print(json.dumps(dict(json.loads(l), width=int(sys.argv[1])))) for l in sys.stdin]' "$width" >> "$jsonl"
    tail -n 1 "$jsonl" | python3 -c 'import json,sys; r=json.loads(sys.stdin.read()); f=r["first_failure"]; print("  depth", (">" if r["passed_cap"] else "") + str(r["depth_log2"]), f["test"] + " on " + f["transform"] if f else "-", "%.1f s" % r["seconds"])' >&2
  done
  echo "load after: $(uptime)" >> "$run"
fi

python3 - "$out" "${functions[@]}" <<'PY'
import json, os, re, sys
out, rows = sys.argv[1], [f.split('|') for f in sys.argv[2:]]
reports = {}
for line in open(f"{out}/rrc-calibration.jsonl"):
    r = json.loads(line)
    reports[r["name"]] = r
run = open(f"{out}/rrc-calibration.run").read().splitlines()
loads = {l[5:].split(": ")[0]: l.split(": ")[-1] for l in run if l.startswith("load ") and not l.startswith(("load before", "load after"))}
md_path = f"{out}/rrc-calibration.md"
notes = ""
if os.path.exists(md_path):
    old = open(md_path).read()
    i = old.find("\n## Notes")
    if i >= 0:
        notes = old[i + 1:]

def ours(r):
    return (">" if r["passed_cap"] else "") + str(r["depth_log2"])

def diff(r, tfr):
    """(text, agrees within +-1 or both above our cap, numeric difference or None)"""
    if tfr in ("-", ""):
        return "-", None, None
    cap = r["cap_log2"]
    t_above = tfr.startswith(">")
    t = int(tfr.lstrip(">"))
    if r["passed_cap"]:
        if t_above or t > cap:
            return f"0 (both > {cap})", True, None
        return f">= +{cap + 1 - t}", False, None
    d = r["depth_log2"]
    if t_above:
        return f"<= {d - t - 1:+d}" if d <= t else f"{d - t:+d}", d > t, None
    return (f"{d - t:+d}" if d != t else "0"), abs(d - t) <= 1, d - t

head = [l for l in run if not l.startswith("load ") or l.startswith(("load before", "load after"))]
lines = ["# RRC depth: mixforge's battery against tests-for-randomness", ""]
lines += [f"- {l}" for l in head]
lines += ["",
          "Made by `bench/rrc_calibration.sh` from `rrc-calibration.jsonl` (one `bench_rrc_depth` report per line) "
          "and `rrc-calibration.run`. Depth: log2 of the first stream length (from 2^10) at which the smallest "
          "p-value of the 4n RRC streams' tests is below 1e-9; \">C\": passed the cap C (24; 14 at 16 bits). "
          "Deciding test: the first failure's test and stream (`meta:` = the KS test over all streams' p-values). "
          "TFR: the depth tests-for-randomness gives (\"published\": its results tables, cap 2^35, the failures "
          "it lists, '*' where its meta analysis failed; \"here at 2^24\": TFR run on this machine; \"here at "
          "2^16\": TFR run here on 16-bit functions, see the notes). Difference: mixforge - TFR. Load: the 1-, 5- "
          "and 15-minute load average when the function started (2 cores, shared).", ""]
by_width = {}
for row in rows:
    by_width.setdefault(int(row[1]), []).append(row)
agree32 = []
for width in sorted(by_width, key=lambda w: {32: 0, 64: 1, 16: 2}.get(w, 3)):
    lines += [f"## {width} bits", "",
              "| function | width | program | mixforge depth | deciding test on stream (p) | TFR | difference | seconds | load |",
              "|---|---|---|---|---|---|---|---|---|"]
    for name, w, short, tfr, src in by_width[width]:
        r = reports.get(name)
        if r is None:
            lines.append(f"| {name} | {w} | `{short}` | not run | | {tfr} ({src}) | | | |")
            continue
        f = r["first_failure"]
        dec = f"{f['test']} on {f['transform']} (p {f['p']:.3g})" if f else "-"
        dtext, ok, _ = diff(r, tfr)
        if width == 32 and ok is not None:
            agree32.append((name, ok))
        src = src.replace("*", "\\*")
        tf = f"{tfr} ({src})" if tfr != "-" else src
        lines.append(f"| {name} | {w} | `{short}` | {ours(r)} | {dec} | {tf} | {dtext} | {r['seconds']:.1f} | {loads.get(name, '')} |")
    lines.append("")
if agree32:
    n_ok = sum(ok for _, ok in agree32)
    lines.append(f"32 bits: {n_ok} of {len(agree32)} within +-1 of TFR (or both above the cap); "
                 f"not within: {', '.join(n for n, ok in agree32 if not ok) or 'none'}.")
    lines.append("")
text = "\n".join(lines) + "\n"
if notes:
    text += "\n" + notes
open(md_path, "w").write(text)
print(text)
PY
