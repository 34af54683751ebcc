#!/usr/bin/env bash
# The scoring figures README quotes ("Scoring and its speed", rand_range uniformity):
# `mixforge eval` on lowbias32 (3 times), bench_avalanche (JIT against the reference
# interpreter, ratios measured in the same run; its small-task rows alone as the part
# small_work), bench_jit_compile and bench_rand_range.
# Writes bench/results/scoring/{machine,eval_lowbias32,bench_avalanche,
# bench_avalanche_small_work,bench_jit_compile,bench_rand_range}.txt. The machine is shared: the load average is recorded before and
# after each part, so read the figures as taken under that load.
#
#   bench/scoring.sh [BUILD_DIR [PART...]]   (default build/release and every part:
#                                            eval avalanche jit_compile rand_range;
#                                            small_work, exact_small, fold, perf and
#                                            exact_reference only when named)
# OUT= writes the files to another folder (e.g. one per machine); BASELINE= see the eval part.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="${1:-$here/../build/release}"
shift || true
parts="${*:-eval avalanche jit_compile rand_range}"
want() { [[ " $parts " == *" $1 "* ]]; }
out="${OUT:-$here/results/scoring}"
mkdir -p "$out"
targets=""
{ want eval || want perf; } && targets="$targets mixforge"
{ want avalanche || want small_work || want fold; } && targets="$targets bench_avalanche"
for b in jit_compile rand_range exact_small exact_reference; do want $b && targets="$targets bench_$b"; done
flock /tmp/mixforge-build.lock cmake --build "$build" --target $targets  # the build lock: others build here too
load() { cut -d' ' -f1-3 /proc/loadavg; }
machine() {
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) cores"
  if grep -qw avx512f /proc/cpuinfo; then echo "avx512f: yes"; else echo "avx512f: no"; fi
  if grep -qw avx2 /proc/cpuinfo; then echo "avx2: yes"; else echo "avx2: no"; fi
  echo "commit: $(git -C "$here/.." rev-parse --short HEAD)"
}
# machine.txt describes the machine of the default parts; exact_small carries its own.
if want eval || want avalanche || want jit_compile || want rand_range; then
  machine > "$out/machine.txt"
  cat "$out/machine.txt"
fi

lowbias32="x ^= x >> 16; x *= 0x7feb352d; x ^= x >> 15; x *= 0x846ca68b; x ^= x >> 16;"
# BASELINE=<another mixforge binary> (e.g. one built at the commit before) runs it in turn
# with this build's, 5 runs each, and prints the ratio of the median times.
want eval && {
  if [[ -n "${BASELINE:-}" ]]; then
    echo "# mixforge eval (exact, all 2^32 inputs, compile included), this build against BASELINE"
    echo "# baseline: $BASELINE ($(sha256sum "$BASELINE" | cut -c1-12))"
    echo "# load before: $(load)"
    mine=() theirs=()
    seconds() { "$1" eval "$lowbias32" | tee /dev/stderr | awk '$1 == "time" { print $2 }'; }
    for _ in 1 2 3 4 5; do
      theirs+=("$(seconds "$BASELINE")")
      mine+=("$(seconds "$build/cli/mixforge")")
    done
    median() { printf '%s\n' "$@" | sort -g | sed -n 3p; }
    m=$(median "${mine[@]}") t=$(median "${theirs[@]}")
    echo "# this build: ${mine[*]} s (median $m)"
    echo "# baseline:   ${theirs[*]} s (median $t)"
    echo "# baseline / this build: $(awk -v a="$t" -v b="$m" 'BEGIN { printf "%.3f", a / b }')"
  else
    echo "# mixforge eval (exact, all 2^32 inputs, compile included), 3 runs; load before: $(load)"
    for _ in 1 2 3; do "$build/cli/mixforge" eval "$lowbias32"; echo; done
  fi
  echo "# load after: $(load)"
} 2>&1 | tee "$out/eval_lowbias32.txt"

# Where an exact scoring's CPU goes: perf's software clock (no hardware counters in this
# VM) over `mixforge eval` of lowbias32. Not in the default parts: name it (needs perf).
want perf && {
  machine | sed 's/^/# /'
  echo "# perf record -e cpu-clock -F 2000 mixforge eval lowbias32; load before: $(load)"
  echo "# hex addresses are JIT-compiled code: the hashing"
  cc -O2 -o "$out/core_clock" "$here/core_clock.c"
  echo "# core clock, one core busy (bench/core_clock.c): $("$out/core_clock")"
  rm -f "$out/core_clock"
  /usr/bin/time -f "# mixforge eval alone: %e s wall, %U s user, %S s system" "$build/cli/mixforge" eval "$lowbias32" >/dev/null
  perf record -q -e cpu-clock -F 2000 -o "$out/perf.data" "$build/cli/mixforge" eval "$lowbias32" >/dev/null
  perf report -i "$out/perf.data" --no-children --sort symbol -g none 2>/dev/null | grep '%' | grep -v '^#' |
    sed -e 's/mixforge::avalanche::counting::avx512::(anonymous namespace):://g' -e 's/ *$//' > "$out/perf.txt"
  awk '{ p = $1; sub(/%/, "", p); if (p + 0 >= 0.3) print }' "$out/perf.txt" | cut -c1-160
  awk '{ p = $1; sub(/%/, "", p); if ($3 ~ /^0x/) jit += p; else if ($3 ~ /count|add_level/) count += p; else rest += p }
       END { printf "# in all: counting kernels %.1f %%, JIT-compiled hashing %.1f %%, the rest %.1f %%\n", count, jit, rest }' "$out/perf.txt"
  rm -f "$out/perf.data" "$out/perf.txt"
  rm -f "$out/perf.data"
  echo "# load after: $(load)"
} 2>&1 | tee "$out/perf_eval.txt"

# The small scoring tasks alone (where evolver/search/early_reject.hpp's default_small_work_limit
# comes from), without the rest of bench_avalanche.
want small_work && {
  echo "# bench_avalanche --benchmark_filter=small_work; load before: $(load)"
  "$build/bench/bench_avalanche" --benchmark_filter=small_work
  echo "# load after: $(load)"
} 2>&1 | tee "$out/bench_avalanche_small_work.txt"

# Reading the bit-sliced counters (fold_bits against the reference loop), which sampled
# scoring does once per input bit and chunk of samples. Not in the default parts: name it.
want fold && {
  machine | sed 's/^/# /'
  echo "# bench_avalanche --benchmark_filter=fold; load before: $(load)"
  "$build/bench/bench_avalanche" --benchmark_filter='^fold'
  echo "# load after: $(load)"
} 2>&1 | tee "$out/bench_avalanche_fold.txt"

# Exact scores at small widths (issue 39): the tiled interpreter against the JIT and the
# per-neighbour interpreter, fresh programs, one thread (where interpreted_exact_max_width
# in avalanche/evaluator.hpp comes from). Not in the default parts: name it.
want exact_small && {
  machine | sed 's/^/# /'
  echo "# bench_exact_small 2; load before: $(load)"
  "$build/bench/bench_exact_small" 2
  echo "# load after: $(load)"
} 2>&1 | tee "$out/exact_small.txt"

# Exact lowbias32 by the JIT (compile included, as `mixforge eval`) against plain
# multithreaded reference loops, alternating (issue 52 part 5; the ratio's definition is in
# bench/exact_reference_bench.cpp). REF_ROUNDS=2, REF_VARIANTS=perbit,pairs, REF_LOG2=32
# (below 32 the reference runs on 2^REF_LOG2 inputs and its time is scaled: extrapolated).
# Not in the default parts: name it.
want exact_reference && {
  machine | sed 's/^/# /'
  echo "# bench_exact_reference ${REF_ROUNDS:-2} ${REF_VARIANTS:-perbit,pairs} ${REF_LOG2:-32}; load before: $(load)"
  "$build/bench/bench_exact_reference" "${REF_ROUNDS:-2}" "${REF_VARIANTS:-perbit,pairs}" "${REF_LOG2:-32}"
  echo "# load after: $(load)"
} 2>&1 | tee "$out/exact_reference${REF_LOG2:+_log2_$REF_LOG2}.txt"

for b in bench_avalanche bench_jit_compile bench_rand_range; do
  want "${b#bench_}" || continue
  {
    echo "# $b; load before: $(load)"
    "$build/bench/$b"
    echo "# load after: $(load)"
  } 2>&1 | tee "$out/$b.txt"
done
