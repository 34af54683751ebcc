#!/usr/bin/env bash
# `mixforge polish` re-finding the two 32-bit functions that the exact climb found first as
# a bench tool (issue 52 part 4): from triple32 [17 ed5ad4bb 11 ac4c1b51 15 31848bab 14] to
# [17 ad5ad4bb 11 ac4c1b51 15 b9848bab 14], and from [16 21f0aaad 15 f35a2d97 15] to
# [16 21f0aaad 15 735a2d97 15]. The climbs run one after the other, each on all cores; a
# climb is stopped (SIGINT: it ends cleanly with its JSON line) once it has moved to its
# target, or at LIMIT seconds. Writes bench/results/polish/refind32.md (the table) and
# refind32/<name>.log (each climb's full output).
#
#   bench/polish.sh [BUILD_DIR]        LIMIT=3600 (seconds per climb)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="${1:-$here/../build/release}"
limit="${LIMIT:-3600}"
out="$here/results/polish"
raw="$out/refind32"
mkdir -p "$raw"
bin="$(mktemp -d)/mixforge"
cp "$build/cli/mixforge" "$bin"  # a rebuild during the climbs must not change what runs
load() { cut -d' ' -f1-3 /proc/loadavg; }
started="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
commit="$(git -C "$here/.." rev-parse --short HEAD)$(git -C "$here/.." diff --quiet HEAD -- . ':!bench/results' || echo ' with uncommitted changes')"
cpu="$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) cores"
loads=()
# climb NAME START TARGET_SHORT: polish START until it moves to TARGET (or LIMIT).
climb() {
  local name="$1" start="$2" target="$3" log="$raw/$1.log"
  local before
  before="$(load)"
  "$bin" polish --json --seconds "$limit" "$start" > "$log" 2>&1 &
  local pid=$!
  while kill -0 "$pid" 2>/dev/null; do
    if grep -q "move to $target " "$log"; then
      kill -INT "$pid"
      break
    fi
    sleep 2
  done
  wait "$pid" || true
  loads+=("$name: before $before, after $(load)")
}
climb triple32 "x ^= x >> 17; x *= 0xed5ad4bb; x ^= x >> 11; x *= 0xac4c1b51; x ^= x >> 15; x *= 0x31848bab; x ^= x >> 14;" \
  "xsr 17, mul 0xad5ad4bb, xsr 11, mul 0xac4c1b51, xsr 15, mul 0xb9848bab, xsr 14"
climb f35a2d97 "x ^= x >> 16; x *= 0x21f0aaad; x ^= x >> 15; x *= 0xf35a2d97; x ^= x >> 15;" \
  "xsr 16, mul 0x21f0aaad, xsr 15, mul 0x735a2d97, xsr 15"
python3 - "$raw" "$out/refind32.md" "$started" "$commit" "$cpu" "$limit" "${loads[@]}" <<'PY'
import json, os, re, sys
raw, md, started, commit, cpu, limit, *loads = sys.argv[1:]
targets = {"triple32": "xsr 17, mul 0xad5ad4bb, xsr 11, mul 0xac4c1b51, xsr 15, mul 0xb9848bab, xsr 14",
           "f35a2d97": "xsr 16, mul 0x21f0aaad, xsr 15, mul 0x735a2d97, xsr 15"}
rows = []
for name, target in targets.items():
    lines = open(os.path.join(raw, name + ".log")).read().splitlines()
    result = json.loads(lines[-1])
    moves = [l for l in lines if " move to " in l]
    reached = next((l for l in moves if f"move to {target} " in l), None)
    at = float(reached.split("s", 1)[0]) if reached else None
    scored_at = None
    if reached:  # the step line just before the move line counts the exact scores so far
        i = lines.index(reached)
        m = re.search(r"\((\d+) scored", lines[i - 1])
        scored_at = int(m.group(1)) if m else None
    rows.append((name, result, len(moves), at, scored_at, target))
with open(md, "w") as o:
    o.write("# mixforge polish re-finding the two 32-bit climbs' functions\n\n")
    o.write(f"- date: {started}; commit {commit} (the binary copied at the start); {cpu}\n")
    o.write(f"- load (1, 5, 15 min): {'; '.join(loads)}\n")
    o.write(f"- command: bench/polish.sh (`mixforge polish --json --seconds {limit} PROGRAM`, one climb at a time "
            "on all cores; stopped by SIGINT once it moved to its target)\n")
    o.write("- logs: refind32/<start>.log (every exact score with its time)\n\n")
    o.write("| start | target | reached | time to target | exact scores to it | moves | end | end chi2 |\n")
    o.write("|---|---|---|---|---|---|---|---|\n")
    for name, r, moves, at, scored_at, target in rows:
        o.write(f"| `{r['start']['short']}` ({r['start']['chi2_exact']:.5e}) | `{target}` | "
                f"{'yes' if at is not None else 'no'} | {f'{at:.0f} s' if at is not None else '-'} | "
                f"{scored_at if scored_at is not None else '-'} | {moves} | `{r['best']['short']}` | "
                f"{r['best']['chi2_exact']:.7e} |\n")
print(open(md).read())
PY
