#!/usr/bin/env bash
# Does the RRC term pay? The same 32-bit search (xsr,mul,xsr,mul,xsr given, one thread each)
# with and without objective.rrc_weight, both arms of a seed at once (each a core of the
# two), for the same seconds; then every arm's top leaders are judged alike:
# `mixforge quality --rrc --rrc-cap CAP` for the depth, the run's exact chi2 where known.
# Writes bench/results/objective/rrc-ab.md (the table) and rrc-ab/<seed>-<arm>.json (each
# run's final JSON) and the quality reports beside them.
#
#   bench/rrc_objective.sh [BUILD_DIR [MINUTES [SEEDS [TOP]]]]
#   defaults: build/release, 20, "91 92", 5; WEIGHT=2e-6 CAP=20 BOUND=1.5418e-5 (lowbias32's chi2)
#   LABEL=x writes rrc-ab-x.md and rrc-ab-x/ instead (another setting beside the first)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="${1:-$here/../build/release}"
minutes="${2:-20}"
seeds="${3:-91 92}"
top="${4:-5}"
weight="${WEIGHT:-2e-6}"
cap="${CAP:-20}"
bound="${BOUND:-1.5418e-5}"
out="$here/results/objective"
name="rrc-ab${LABEL:+-$LABEL}"
raw="$out/$name"
mkdir -p "$raw"
mixforge="$build/cli/mixforge"
bin="$(mktemp -d)/mixforge"
cp "$mixforge" "$bin"  # a rebuild during the runs must not change what runs
load() { cut -d' ' -f1-3 /proc/loadavg; }
started="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
commit="$(git -C "$here/.." rev-parse --short HEAD)$(git -C "$here/.." diff --quiet HEAD -- . ':!bench/results' || echo ' with uncommitted changes')"
before="$(load)"
common=(evolve --width 32 --kind-sequence xsr,mul,xsr,mul,xsr --seconds $((minutes * 60)) --threads 1 --json)
for seed in $seeds; do
  data="$(mktemp -d)"
  "$bin" "${common[@]}" --seed "$seed" --data "$data/plain" > "$raw/$seed-plain.json" 2> "$raw/$seed-plain.err" &
  "$bin" "${common[@]}" --seed "$seed" --data "$data/rrc" --rrc-weight "$weight" --rrc-cap "$cap" \
    --rrc-chi2-bound "$bound" > "$raw/$seed-rrc.json" 2> "$raw/$seed-rrc.err" &
  wait
done
after_runs="$(load)"
# Judge each arm's top leaders alike (one at a time, after the runs).
for f in "$raw"/*-plain.json "$raw"/*-rrc.json; do
  python3 - "$f" "$top" > "$f.programs" <<'PY'
import json, sys
d = json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])
for b in d["best"][: int(sys.argv[2])]:
    print(b["text"].replace("\n", " "))
PY
  : > "$f.quality"
  while IFS= read -r text; do
    "$bin" quality --json --size quick --no-battery --rrc --rrc-cap "$cap" "$text" >> "$f.quality"
  done < "$f.programs"
done
python3 - "$raw" "$out/$name.md" "$started" "$before" "$after_runs" "$(load)" "$minutes" "$weight" "$cap" "$bound" \
  "$commit" "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) cores" <<'PY'
import glob, json, os, sys
raw, md, started, before, after_runs, after, minutes, weight, cap, bound, commit, cpu = sys.argv[1:]
rows = []
for f in sorted(glob.glob(os.path.join(raw, "*.json"))):
    seed, arm = os.path.basename(f)[:-5].split("-")
    run = json.loads(open(f).read().strip().splitlines()[-1])
    reports = [json.loads(l) for l in open(f + ".quality") if l.strip()]
    for rank, (b, q) in enumerate(zip(run["best"], reports), 1):
        r = q["rrc"]
        depth = (">" if r["passed_cap"] else "") + str(r["depth_log2"])
        chi2 = b["chi2_exact"] if b.get("chi2_exact") is not None else b["chi2"]
        rows.append((seed, arm, run["counters"]["tournaments"], rank, b["short"], chi2,
                     "exact" if b.get("chi2_exact") is not None else "sampled", depth,
                     r["first_failure"]["test"] if r["first_failure"] else "-"))
with open(md, "w") as o:
    o.write("# The RRC term: the same search with and without it\n\n")
    o.write(f"- date: {started}; commit {commit} (the binary copied at the start); {cpu}\n")
    o.write(f"- load: before {before}, after the runs {after_runs}, at the end {after}\n")
    o.write(f"- command: bench/rrc_objective.sh (each seed's two arms at once, one thread each, {minutes} minutes; "
            f"32 bits, xsr,mul,xsr,mul,xsr given; rrc arm: --rrc-weight {weight} --rrc-cap {cap} --rrc-chi2-bound {bound})\n")
    o.write(f"- every arm's top leaders judged alike: mixforge quality --rrc --rrc-cap {cap} (depth); chi2 exact where the run scored it\n\n")
    o.write("| seed | arm | tournaments | rank | program | chi2 | | RRC depth | deciding test |\n|---|---|---|---|---|---|---|---|---|\n")
    for r in rows:
        o.write(f"| {r[0]} | {r[1]} | {r[2]} | {r[3]} | `{r[4]}` | {r[5]:.4e} | {r[6]} | {r[7]} | {r[8]} |\n")
print(open(md).read())
PY
