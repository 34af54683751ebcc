#!/usr/bin/env bash
# Issue 11's search-quality figure: `bench_evolve --seeds` for each configuration given
# (label=JSON), 3 seeds each, one run after another on 2 threads; best exact chi2 of a
# 32-bit 5-step search at each mark and the median over the seeds. Appends to
# bench/results/evolve/seeds.{md,csv}; the load average before and after each
# configuration goes to seeds.log, so read the figures as taken under that load.
# OUT=DIR writes elsewhere (the 16-bit table: OUT=bench/results/evolve/width16); SEEDS=K
# runs seeds 1..K instead of 3 (one 60-minute run: SEEDS=1); FIRST_SEED=S starts at seed S
# (a long benchmark split into parts: SEEDS=1 FIRST_SEED=2 runs seed 2 alone; after each
# part, `bench_evolve --table` writes OUT/seeds_LABEL.md: every seed so far and their median).
#
#   bench/evolve_seeds.sh [BUILD_DIR] [MINUTES] [label=JSON ...]
#   default: build/release, 1,5,10, and the pair that measures local search:
#            no-local-search={"local_search":{"enabled":false}}  default={}
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="${1:-$here/../build/release}"
minutes="${2:-1,5,10}"
shift 2 || shift $# || true
configs=("$@")
if [ ${#configs[@]} -eq 0 ]; then
  configs=('no-local-search={"local_search":{"enabled":false}}' 'default={}')
fi
out="${OUT:-$here/results/evolve}"
mkdir -p "$out"
cmake --build "$build" --target bench_evolve >/dev/null
commit="$(git -C "$here/.." rev-parse --short HEAD)"
for c in "${configs[@]}"; do
  label="${c%%=*}"
  json="${c#*=}"
  echo "$(date -u +%FT%TZ) $label $json commit $commit load before: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out/seeds.log"
  "$build/bench/bench_evolve" --seeds "${SEEDS:-3}" --first-seed "${FIRST_SEED:-1}" --minutes "$minutes" --out "$out" --label "$label" --config "$json" \
    | tee -a "$out/seeds.log"
  echo "$(date -u +%FT%TZ) $label load after: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out/seeds.log"
  if [ -n "${FIRST_SEED:-}" ]; then
    "$build/bench/bench_evolve" --table "$out" --label "$label"
  fi
done
