#!/usr/bin/env bash
# The exact climb's order of single moves, fixed against informed (issue 52 part 3), where
# exact scores are cheap: random 2-round starts at 16 and 20 bits climbed to a local
# optimum of single moves in each order (bench_move_order), and a poor 32-bit function (a
# 16-bit mixer's constants at 32 bits, far from any optimum) for its first 40 scores.
# Writes bench/results/polish/move_order.md with the date, commit and load.
#
#   bench/move_order.sh [BUILD_DIR]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="${1:-$here/../build/release}"
bin="$build/bench/bench_move_order"
out="$here/results/polish/move_order.md"
commit="$(git -C "$here/.." rev-parse --short HEAD)$(git -C "$here/.." diff --quiet HEAD -- . ':!bench/results' || echo ' with uncommitted changes')"
{
  echo "# The exact climb's move orders, fixed against informed"
  echo
  echo "- date: $(date -u +%Y-%m-%dT%H:%M:%SZ); commit $commit; $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) cores; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "- command: bench/move_order.sh (bench_move_order 16 100 3; 20 40 7; 20 40 11; --programs 40 on one poor 32-bit function)"
  echo "- each row: exact scores until the last move / until the local optimum of single moves (pairs off), and the end's exact chi2"
  for args in "16 100 3" "20 40 7" "20 40 11"; do
    echo
    echo "## bench_move_order $args"
    echo
    # shellcheck disable=SC2086
    "$bin" $args
  done
  echo
  echo "## A poor 32-bit start: the centre's exact chi2 after k scores"
  echo
  "$bin" --programs 40 "x ^= x >> 8; x *= 0xa3d3; x ^= x >> 7; x *= 0xcb2d; x ^= x >> 9;"
  echo
  echo "- load after: $(cut -d' ' -f1-3 /proc/loadavg)"
} > "$out"
grep -E "starts at|load" "$out"
