#!/usr/bin/env bash
# The 32-bit 5-step search with the GPU evaluator against the same search on the CPU, at
# the same wall time: SEEDS runs of each at once, every run on 2 cores of its own (taskset),
# the way one search runs on a 2-core development machine; the GPU runs share the one GPU.
# Needs 4 * SEEDS + 2 cores and a CUDA GPU (bench_evolve --device gpu says why not).
#   bench/gpu_search.sh [BUILD_DIR] [MINUTES] [SEEDS]   (default build/release 10 3)
# Writes OUT (default bench/results/gpu/search)/seeds.csv (bench_evolve --seeds rows, labels
# cpu and gpu), evolve.log, and seeds_cpu.md / seeds_gpu.md (bench_evolve --table: per seed
# and the median at 1, 2, 5 and MINUTES minutes, with tournaments/s).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/release}
minutes=${2:-10}
seeds=${3:-3}
out=${OUT:-bench/results/gpu/search}
exe="$build/bench/bench_evolve"
need=$((4 * seeds + 2))
if [ "$(nproc)" -lt "$need" ]; then
  echo "gpu_search: $seeds seeds per device need $need cores (2 per run and 2 spare); this machine has $(nproc)" >&2
  exit 2
fi
marks=$(printf '%s\n' 1 2 5 "$minutes" | awk -v m="$minutes" '$1 <= m' | sort -nu | paste -sd,)
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
k=0
pids=()
for device in cpu gpu; do
  for s in $(seq 1 "$seeds"); do
    first=$((2 * k + 2))
    taskset -c "$first,$((first + 1))" "$exe" --seeds 1 --first-seed "$s" --out "$work/$device$s" --minutes "$marks" \
      --label "$device" --device "$device" > "$work/$device$s.log" 2>&1 &
    pids+=($!)
    k=$((k + 1))
  done
done
status=0
for p in "${pids[@]}"; do wait "$p" || status=1; done
{ echo "# $(date -u +%Y-%m-%dT%H:%MZ), commit $(git describe --always --dirty 2>/dev/null || echo unknown), $(nproc) cores, $minutes minutes, $seeds seeds per device"
  for f in "$work"/*.log; do echo "-- $(basename "$f")"; cat "$f"; done; } > "$out/evolve.log"
[ "$status" = 0 ] || { echo "gpu_search: a run failed; see $out/evolve.log" >&2; exit 1; }
# One header (bench_evolve's own), then every run's rows.
csvs=("$work"/*/seeds.csv)
{ head -n 1 "${csvs[0]}"; for c in "${csvs[@]}"; do tail -n +2 "$c"; done; } > "$out/seeds.csv"
for device in cpu gpu; do "$exe" --table "$out" --label "$device"; done
cat "$out"/seeds_cpu.md "$out"/seeds_gpu.md
