#!/usr/bin/env bash
# The neighbourhoods searched exhaustively around the 16-bit reference functions (issue 39;
# the published ones and the one mixforge found, [7 f2ab 5 e0f7 9 465b 10]): every shift
# combination, every value of each constant, every two bit flips (bench_record_neighbourhood),
# exact scores. Writes bench/results/records/neighbourhood.txt with the date and load.
#   bench/record_neighbourhood.sh [BUILD_DIR]
# With the part `moves32` instead: the 32-bit 2-round [16 21f0aaad 15 f35a2d97 15], an
# earlier function of hash-prospector issue 19 (not the best published one, which is
# [16 21f0aaad 15 735a2d97 15], that thread's comment of 2022-05-07; this part re-found it,
# one bit flip away), and every program one or two local-search moves away (2343 exact
# 32-bit scores, about 2.3 s each on 2 cores: an hour and a half); writes
# neighbourhood32.txt, one line per program as it goes.
#   bench/record_neighbourhood.sh BUILD_DIR moves32
#   bench/record_neighbourhood.sh BUILD_DIR climb32
# climb32x3: the same exact climb from triple32, the published 32-bit 3-round function
# [17 ed5ad4bb 11 ac4c1b51 15 31848bab 14] (101 single moves, 5046 pairs); climb32x3.txt.
#   bench/record_neighbourhood.sh BUILD_DIR climb32x3
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="${1:-$here/../build/release}"
cmake --build "$build" --target bench_record_neighbourhood >/dev/null
out="$here/results/records"
mkdir -p "$out"
load() { cut -d' ' -f1-3 /proc/loadavg; }
# One 32-bit part: bench_record_neighbourhood MODE on PROGRAM, into FILE as it goes.
part32() {
  local mode="$1" program="$2" chi2="$3" file="$4"
  {
    echo "# $(date -u +%FT%TZ) bench_record_neighbourhood $mode, commit $(git -C "$here/.." rev-parse --short HEAD); load before: $(load)"
    "$build/bench/bench_record_neighbourhood" "$mode" 32 "$program" "$chi2"
    echo "# $(date -u +%FT%TZ) load after: $(load)"
  } 2>&1 | tee "$out/$file"
}
case "${2:-}" in
  # The earlier published 2-round function f35a2d97 and its neighbourhood.
  moves32)
    part32 --moves "x ^= x >> 16; x *= 0x21f0aaad; x ^= x >> 15; x *= 0xf35a2d97; x ^= x >> 15;" 5.9001e-6 neighbourhood32.txt
    exit 0 ;;
  # An exact first-improvement local search (one move, then two) from the best published
  # 2-round function [16 21f0aaad 15 735a2d97 15] (hash-prospector issue 19, comment of
  # 2022-05-07; moves32 re-found it from f35a2d97: a rediscovery, not a record). Stop it any
  # time: every line stands.
  climb32)
    part32 --climb "x ^= x >> 16; x *= 0x21f0aaad; x ^= x >> 15; x *= 0x735a2d97; x ^= x >> 15;" 5.8666e-6 climb32.txt
    exit 0 ;;
  # The same climb from triple32 (goal 6 of issue 39: a 7-step 32-bit function below it).
  climb32x3)
    part32 --climb "x ^= x >> 17; x *= 0xed5ad4bb; x ^= x >> 11; x *= 0xac4c1b51; x ^= x >> 15; x *= 0x31848bab; x ^= x >> 14;" 2.2340e-7 climb32x3.txt
    exit 0 ;;
esac
{
  echo "# $(date -u +%FT%TZ) bench_record_neighbourhood, commit $(git -C "$here/.." rev-parse --short HEAD); load before: $(load)"
  "$build/bench/bench_record_neighbourhood" 16 "x ^= x >> 8; x *= 0xa3d3; x ^= x >> 7; x *= 0x4b2d; x ^= x >> 9;" 6.7335e-3
  "$build/bench/bench_record_neighbourhood" 16 "x ^= x >> 11; x *= 0xb663; x ^= x >> 3; x *= 0x897d; x ^= x >> 6; x *= 0xea57; x ^= x >> 8;" 2.4438e-3
  "$build/bench/bench_record_neighbourhood" 16 "x ^= x >> 7; x *= 0xf2ab; x ^= x >> 5; x *= 0xe0f7; x ^= x >> 9; x *= 0x465b; x ^= x >> 10;" 2.2009e-3
  "$build/bench/bench_record_neighbourhood" 16 "x += x << 4; x ^= x >> 7; x += x << 2; x ^= x >> 5; x += x << 3; x ^= x >> 4; x += x << 8; x ^= x >> 6;" 4.0793e-3
  echo "# load after: $(load)"
} 2>&1 | tee "$out/neighbourhood.txt"
