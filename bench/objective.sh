#!/usr/bin/env bash
# The cost of the run objective's extra terms (README, "Objective"): bench_objective's
# timings of the terms against the avalanche scores a run pays for anyway. Writes
# bench/results/objective/bench.txt (the console table) and bench.json, with machine.txt.
# The machine is shared: the load average is recorded before and after.
#
#   bench/objective.sh [BUILD_DIR]   (default build/release)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="${1:-$here/../build/release}"
out="$here/results/objective"
mkdir -p "$out"
cmake --build "$build" --target bench_objective
load() { cut -d' ' -f1-3 /proc/loadavg; }
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) cores"
  echo "commit: $(git -C "$here/.." rev-parse --short HEAD)"
  echo "load before: $(load)"
} > "$out/machine.txt"
"$build/bench/bench_objective" --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
  --benchmark_out="$out/bench.json" --benchmark_out_format=json | tee "$out/bench.txt"
echo "load after: $(load)" >> "$out/machine.txt"
