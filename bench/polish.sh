#!/usr/bin/env bash
# `mixforge polish` re-finding the two 32-bit functions that the exact climb found first as
# a bench tool (issue 52 part 4), in each order of single moves (issue 52 part 3: --move-order
# informed, the default, or fixed): from triple32 [17 ed5ad4bb 11 ac4c1b51 15 31848bab 14]
# towards [17 ad5ad4bb 11 ac4c1b51 15 b9848bab 14], and from [16 21f0aaad 15 f35a2d97 15]
# towards [16 21f0aaad 15 735a2d97 15]. The climbs run one after the other, each on all
# cores; a climb is stopped (SIGINT: it ends cleanly with its JSON line) once it has moved to
# its target, or at LIMIT seconds. Each climb writes refind32/<start>-<order>.log (its own
# date, commit and load around its output); the table bench/results/polish/refind32.md is
# made from every log there, so a rerun of some climbs keeps the others' rows.
#
#   bench/polish.sh [BUILD_DIR]   LIMIT=3600 (seconds per climb)
#                                 STARTS="triple32 f35a2d97"  ORDERS="informed fixed"
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="${1:-$here/../build/release}"
limit="${LIMIT:-3600}"
starts="${STARTS:-triple32 f35a2d97}"
orders="${ORDERS:-informed fixed}"
out="$here/results/polish"
raw="$out/refind32"
mkdir -p "$raw"
bin="$(mktemp -d)/mixforge"
cp "$build/cli/mixforge" "$bin"  # a rebuild during the climbs must not change what runs
load() { cut -d' ' -f1-3 /proc/loadavg; }
commit="$(git -C "$here/.." rev-parse --short HEAD)$(git -C "$here/.." diff --quiet HEAD -- . ':!bench/results' || echo ' with uncommitted changes')"
cpu="$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) cores"
declare -A program=(
  [triple32]="x ^= x >> 17; x *= 0xed5ad4bb; x ^= x >> 11; x *= 0xac4c1b51; x ^= x >> 15; x *= 0x31848bab; x ^= x >> 14;"
  [f35a2d97]="x ^= x >> 16; x *= 0x21f0aaad; x ^= x >> 15; x *= 0xf35a2d97; x ^= x >> 15;")
declare -A target=(
  [triple32]="xsr 17, mul 0xad5ad4bb, xsr 11, mul 0xac4c1b51, xsr 15, mul 0xb9848bab, xsr 14"
  [f35a2d97]="xsr 16, mul 0x21f0aaad, xsr 15, mul 0x735a2d97, xsr 15")
for start in $starts; do
  for order in $orders; do
    log="$raw/$start-$order.log"
    echo "# bench/polish.sh: start $start, move order $order, $(date -u +%Y-%m-%dT%H:%M:%SZ), commit $commit, $cpu; load before: $(load)" > "$log"
    "$bin" polish --json --move-order "$order" --seconds "$limit" "${program[$start]}" >> "$log" 2>&1 &
    pid=$!
    while kill -0 "$pid" 2>/dev/null; do
      if grep -q "move to ${target[$start]} " "$log"; then
        kill -INT "$pid"
        break
      fi
      sleep 2
    done
    wait "$pid" || true
    echo "# load after: $(load)" >> "$log"
  done
done
python3 - "$raw" "$out/refind32.md" "$limit" <<'PY'
import glob, json, os, re, sys
raw, md, limit = sys.argv[1:]
targets = {"triple32": "xsr 17, mul 0xad5ad4bb, xsr 11, mul 0xac4c1b51, xsr 15, mul 0xb9848bab, xsr 14",
           "f35a2d97": "xsr 16, mul 0x21f0aaad, xsr 15, mul 0x735a2d97, xsr 15"}
rows = []
checkpoints = [25, 50, 100, 200, 450]
for path in sorted(glob.glob(os.path.join(raw, "*.log"))):
    name, order = os.path.basename(path)[:-4].rsplit("-", 1)
    lines = open(path).read().splitlines()
    head, tail = lines[0], lines[-1]
    body = [l for l in lines if not l.startswith("# ")]
    try:
        result = json.loads(body[-1])
    except (ValueError, IndexError):
        print(f"{path}: no JSON line (a climb still running or killed): left out", file=sys.stderr)
        continue
    moves = [l for l in body if " move to " in l]
    target = targets[name]
    reached = next((l for l in moves if f"move to {target} " in l), None)
    at = float(reached.split("s", 1)[0]) if reached else None
    scored_at = None
    if reached:  # the step line just before the move line counts the exact scores so far
        i = body.index(reached)
        m = re.search(r"\((\d+) scored", body[i - 1])
        scored_at = int(m.group(1)) if m else None
    # The centre's exact chi2 after k exact scores (the start's included): a move line
    # follows the step line that scored its program.
    start_chi2 = result["start"]["chi2_exact"]
    centre_after, centre, scored = {}, start_chi2, 1
    for l in body:
        m = re.search(r"\((\d+) scored", l)
        if m:
            scored = int(m.group(1))
        elif " move to " in l:
            centre = float(re.search(r"exact chi2 (\S+)", l).group(1))
        centre_after[scored] = centre
    def after(k):
        ks = [s for s in centre_after if s <= k]
        return centre_after[max(ks)] if ks and max(centre_after) >= k else None
    rows.append(dict(name=name, order=order, r=result, moves=len(moves), at=at, scored_at=scored_at, target=target,
                     head=head[2:], tail=tail[2:], log=os.path.basename(path), after=[after(k) for k in checkpoints]))
with open(md, "w") as o:
    o.write("# mixforge polish re-finding the two 32-bit climbs' functions, in each order of single moves\n\n")
    o.write(f"- command: bench/polish.sh (`mixforge polish --json --move-order ORDER --seconds {limit} PROGRAM`, "
            "one climb at a time on all cores; stopped by SIGINT once it moved to its target)\n")
    o.write("- each climb's date, commit, machine and load: the first and last lines of its log, below\n\n")
    o.write("| start | order | target | reached | time to target | exact scores to it | moves | end | end chi2 |\n")
    o.write("|---|---|---|---|---|---|---|---|---|\n")
    for w in rows:
        r, at, scored_at = w["r"], w["at"], w["scored_at"]
        o.write(f"| `{r['start']['short']}` ({r['start']['chi2_exact']:.5e}) | {w['order']} | `{w['target']}` | "
                f"{'yes' if at is not None else 'no'} | {f'{at:.0f} s' if at is not None else '-'} | "
                f"{scored_at if scored_at is not None else '-'} | {w['moves']} | `{r['best']['short']}` | "
                f"{r['best']['chi2_exact']:.10e} |\n")
    o.write("\n## The centre's exact chi2 after k exact scores (the start's included; - : the climb ended before)\n\n")
    o.write("| start | order | " + " | ".join(f"k = {k}" for k in checkpoints) + " |\n")
    o.write("|---|---|" + "---|" * len(checkpoints) + "\n")
    for w in rows:
        o.write(f"| {w['name']} | {w['order']} | " +
                " | ".join(f"{v:.6e}" if v is not None else "-" for v in w["after"]) + " |\n")
    o.write("\n## The logs\n\n")
    for w in rows:
        o.write(f"- [refind32/{w['log']}](refind32/{w['log']}): {w['head']}; {w['tail']}\n")
print(open(md).read())
PY
