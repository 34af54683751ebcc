#!/usr/bin/env bash
# The daemon's serving cost and latency under paced load while two runs evolve
# (bench_server_load), and its shutdown under load (bench_shutdown). Writes
# bench/results/server_load/output.txt and bench/results/shutdown/summary.txt, with the
# machine's load average before and after (the machine is shared).
#
#   bench/server_load.sh [BUILD_DIR]      (default build/release; builds what it runs)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="${1:-$here/../build/release}"
mkdir -p "$here/results/server_load" "$here/results/shutdown"
cmake --build "$build" --target mixforge bench_server_load bench_shutdown
load() { cut -d' ' -f1-3 /proc/loadavg; }
{
  echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) cores, commit $(git -C "$here/.." rev-parse --short HEAD); load before: $(load)"
  "$build/bench/bench_server_load" --exe "$build/cli/mixforge"
  echo "# load after: $(load)"
} 2>&1 | tee "$here/results/server_load/output.txt"
"$build/bench/bench_shutdown" --exe "$build/cli/mixforge" --out "$here/results/shutdown/summary.txt"
