#!/usr/bin/env bash
# Sampled scoring with compilation (bench_avalanche's sampled_jit at N = 2^20: fresh 5-step
# 32-bit programs compiled and scored on 2 threads, codegen O1 = the engine's default, which
# sampled scoring at 2^20 uses; one module per program and batches of 16), this build against
# the same benchmark built at BASE (default 9c04c9d), alternating in the same run: ROUNDS
# rounds of one run each, in the order A B, B A, A B, ... Every run repeats each benchmark
# REPS times (4 x 32 programs each). Prints per round and configuration programs/s wall and
# "2-core equivalent" (2 / process CPU seconds per program: the rate if both cores were ours),
# the ratios today / BASE of the same round, and their medians.
# Writes bench/results/scoring/ab_<BASE>.txt (OUT= another folder). The machine is shared:
# read the wall figures with the load average printed before and after each round.
#
#   bench/scoring_ab.sh [BUILD_DIR]   BASE=9c04c9d ROUNDS=7 REPS=3
#
# BASE's bench_avalanche is built outside the tree: a worktree at /tmp/mf-<BASE> (made if
# missing), configured with `cmake --preset release` there, `--target bench_avalanche` only,
# under flock /tmp/mixforge-build.lock. Remove it afterwards:
# git worktree remove --force /tmp/mf-<BASE>
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="${1:-$here/../build/release}"
base="${BASE:-9c04c9d}"
rounds="${ROUNDS:-7}"
reps="${REPS:-3}"
out="${OUT:-$here/results/scoring}"
mkdir -p "$out"
tree="/tmp/mf-$base"
if [[ ! -d "$tree" ]]; then git -C "$here/.." worktree add "$tree" "$base"; fi
[[ -f "$tree/build/release/build.ninja" ]] || (cd "$tree" && cmake --preset release > /dev/null)
flock /tmp/mixforge-build.lock cmake --build "$tree/build/release" --target bench_avalanche > /dev/null
flock /tmp/mixforge-build.lock cmake --build "$build" --target bench_avalanche > /dev/null
# Copies: a rebuild during the rounds must not change what runs.
bins="$(mktemp -d)"
cp "$build/bench/bench_avalanche" "$bins/today"
cp "$tree/build/release/bench/bench_avalanche" "$bins/base"
load() { cut -d' ' -f1-3 /proc/loadavg; }
filter='^sampled_jit/1/(1|16)/20/'
{
  echo "# bench/scoring_ab.sh: sampled scoring at N = 2^20 incl. compile, today against $base, alternating"
  echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "# cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) cores"
  echo "# today: $(git -C "$here/.." rev-parse --short HEAD)$(git -C "$here/.." diff --quiet HEAD -- avalanche jit mixer bench/avalanche_bench.cpp || echo ' with uncommitted changes in avalanche/ jit/ mixer/ or the bench') ($build)"
  echo "# base: $(git -C "$tree" rev-parse --short HEAD) ($tree/build/release)"
  echo "# benchmark: bench_avalanche --benchmark_filter='$filter' --benchmark_repetitions=$reps; rounds: $rounds"
  echo "# load before: $(load)"
  echo "# round side config programs/s-wall 2core-equiv-programs/s"
  for r in $(seq 1 "$rounds"); do
    if ((r % 2)); then order="today base"; else order="base today"; fi
    echo "# round $r: load before $(load)"
    for side in $order; do
      "$bins/$side" --benchmark_filter="$filter" --benchmark_repetitions="$reps" \
        --benchmark_report_aggregates_only=false 2>/dev/null |
        awk -v r="$r" -v side="$side" '/^sampled_jit\// && /programs_per_s=/ && !/_(mean|median|stddev|cv)/ {
          split($1, a, "/"); cfg = "batch" a[3]
          for (i = 1; i <= NF; ++i) {
            if ($i ~ /^programs_per_s=/) { w = $i; sub(/.*=/, "", w) }
            if ($i ~ /^cpu_ms_per_program=/) { c = $i; sub(/.*=/, "", c) }
          }
          printf "%d %s %s %.1f %.1f\n", r, side, cfg, w, 2000 / c }'
    done
  done
  echo "# load after: $(load)"
} | tee "$out/ab_$base.raw"
# Per round and configuration: the mean over the repetitions of each side, and the ratio.
awk -v base="$base" '
  function sort(a, n,   i, j, t) { for (i = 2; i <= n; ++i) for (j = i; j > 1 && a[j - 1] > a[j]; --j) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t } }
  !/^#/ { k = $1 " " $3; if ($2 == "today") { tw[k] += $4; tc[k] += $5; tn[k]++ } else { bw[k] += $4; bc[k] += $5; bn[k]++ }
          cfgs[$3] = 1; rounds[$1] = 1 }
  END {
    printf "\n# per round (mean of the repetitions): today / %s\n", base
    printf "# %-5s %-8s %12s %12s %8s %14s %14s %8s\n", "round", "config", "today wall", base " wall", "ratio", "today 2core", base " 2core", "ratio"
    for (c in cfgs) {
      n = 0
      for (r = 1; r in rounds; ++r) {
        k = r " " c
        if (!(k in tn) || !(k in bn)) continue
        a = tw[k] / tn[k]; b = bw[k] / bn[k]; x = tc[k] / tn[k]; y = bc[k] / bn[k]
        printf "  %-5d %-8s %12.1f %12.1f %8.3f %14.1f %14.1f %8.3f\n", r, c, a, b, a / b, x, y, x / y
        ++n; rw[n] = a / b; rc[n] = x / y; aw[n] = a; ab[n] = b; ac[n] = x; ay[n] = y
      }
      sort(rw, n); sort(rc, n); sort(aw, n); sort(ab, n); sort(ac, n); sort(ay, n)
      m = int((n + 1) / 2)
      printf "# %s, median of %d rounds: wall today %.1f, %s %.1f programs/s, ratio %.3f (range %.3f .. %.3f); 2-core equivalent today %.1f, %s %.1f, ratio %.3f (range %.3f .. %.3f)\n",
        c, n, aw[m], base, ab[m], rw[m], rw[1], rw[n], ac[m], base, ay[m], rc[m], rc[1], rc[n]
    }
  }' "$out/ab_$base.raw" | tee -a "$out/ab_$base.raw"
mv "$out/ab_$base.raw" "$out/ab_$base.txt"
rm -rf "$bins"
