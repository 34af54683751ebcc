#!/usr/bin/env bash
# The long form of the chaos test (issue 8): 16 clients for 10 minutes against a real
# `mixforge serve`, killed and restarted 20 times (mostly SIGKILL, sometimes SIGTERM),
# invariants checked after every restart. Writes the summary line (and any violations) to
# bench/results/chaos/summary.txt and the whole output to bench/results/chaos/output.txt.
#
#   bench/chaos.sh [BUILD_DIR] [extra mixforge_chaos options, e.g. --seed 7]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="${1:-$here/../build/release}"
shift || true
out="$here/results/chaos"
mkdir -p "$out"
cmake --build "$build" --target mixforge_chaos mixforge
{
  echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(uname -n): $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
  nice -n 10 "$build/tests/chaos/mixforge_chaos" --seconds 600 --restarts 20 --clients 16 \
    --summary "$out/summary.txt" "$@"
  echo "# load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
} 2>&1 | tee "$out/output.txt"
