#!/usr/bin/env bash
# Ray coherence of the baker (issue 9, benchmark 2): bench_bake_coherence on a scene of
# 2,097,184 triangles, coherent stratum batches against the same rays shuffled, 3 trials
# interleaved. Writes bench/results/bake/coherence.txt with the load average around it.
#
#   bench/bake_coherence.sh [BUILD_DIR] [bench_bake_coherence options]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="${1:-$here/../build/release}"
shift || true
mkdir -p "$here/results/bake"
cmake --build "$build" --target bench_bake_coherence
{
  echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) cores, commit $(git -C "$here/.." rev-parse --short HEAD); load before: $(cut -d' ' -f1-3 /proc/loadavg)"
  "$build/bench/bench_bake_coherence" "$@"
  echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
} 2>&1 | tee "$here/results/bake/coherence.txt"
