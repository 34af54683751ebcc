#!/usr/bin/env bash
# Tournaments per second of a default 32-bit search (5 steps, sampled from 2^14, 2 worker
# threads, exact ranking of leaders on), two `mixforge` binaries against each other in one
# sitting: each seed runs a fixed tournament budget with the baseline, then the candidate,
# alternating so that the machine's load falls on both alike. Writes
# OUT/tournament_rate.txt (default bench/results/evolve/tournament_rate): per run the wall and
# CPU seconds (/usr/bin/time) and the counters of the run's JSON line, then the medians and
# the ratio baseline / candidate.
#
#   bench/tournament_rate.sh BASELINE_MIXFORGE CANDIDATE_MIXFORGE [TOURNAMENTS [SEEDS]]
#   (default 2000 tournaments, seeds 1..3). A baseline binary of an older commit:
#   git worktree add /tmp/old COMMIT && cmake --preset release -S /tmp/old
#   && cmake --build /tmp/old/build/release --target mixforge
set -euo pipefail
[ $# -ge 2 ] || { sed -n 2,14p "$0" >&2; exit 2; }
# shellcheck disable=SC2034  # read through ${!which}
baseline=$1 candidate=$2 tournaments=${3:-2000} seeds=${4:-3}
here="$(cd "$(dirname "$0")" && pwd)"
out="${OUT:-$here/results/evolve/tournament_rate}"
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
report="$out/tournament_rate.txt"
# The commit of the checkout a binary was built in (its build folder lies inside it).
source_of() {
  local dir
  dir=$(dirname "$(readlink -f "$1")")
  if git -C "$dir" rev-parse --short HEAD > /dev/null 2>&1; then
    echo "commit $(git -C "$dir" rev-parse --short HEAD)$(git -C "$dir" diff --quiet HEAD -- . ':!bench/results' 2>/dev/null || echo ' with uncommitted changes')"
  else
    echo "unknown"
  fi
}
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) cores"
  for which in baseline candidate; do echo "$which: ${!which} (source: $(source_of "${!which}"))"; done
  echo "run: evolve --width 32 --tournaments $tournaments --threads 2 --seed S (defaults otherwise)"
  echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
} > "$report"
for ((seed = 1; seed <= seeds; ++seed)); do
  for which in baseline candidate; do
    bin=${!which}
    /usr/bin/time -f "%e %U %S" -o "$work/time" "$bin" evolve --width 32 --tournaments "$tournaments" \
      --threads 2 --seed "$seed" --data "$work/data-$which-$seed" --json > "$work/out" 2>&1
    read -r wall user sys < "$work/time"
    counters=$(tail -1 "$work/out" | python3 -c 'import json, sys
c = json.load(sys.stdin)["counters"]
print("tournaments %d scored %d early_rejects %d exact_scored %d" % (c["tournaments"], c["scored"], c["early_rejects"], c["exact_scored"]))')
    echo "$which seed $seed: wall $wall s, cpu $(echo "$user + $sys" | bc) s, $counters" | tee -a "$report"
  done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$report"
python3 - "$report" <<'PY' | tee -a "$report"
import re, statistics, sys
rows = [l for l in open(sys.argv[1]) if re.match(r"(baseline|candidate) seed", l)]
def med(which, field):
    return statistics.median(float(re.search(field + r" ([0-9.]+)", l).group(1)) for l in rows if l.startswith(which))
for field in ("wall", "cpu"):
    b, c = med("baseline", field), med("candidate", field)
    print(f"median {field}: baseline {b:.2f} s, candidate {c:.2f} s -> baseline / candidate {b / c:.2f}x")
PY
