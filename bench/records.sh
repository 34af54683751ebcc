#!/usr/bin/env bash
# Issue 39's arena table: the search against the best published functions, exact chi2.
# For each arena named, `bench_evolve --seeds` runs SEEDS seeds (from FIRST_SEED, one after
# another, 2 threads each) and records the best exact chi2 at each mark (minutes), the
# median and range over the seeds, tournaments/s, and the load average before and after.
# Writes bench/results/records/<arena>/{seeds.csv,seeds.md,seeds.log}.
#
#   bench/records.sh [BUILD_DIR] ARENA...       (SEEDS=3 FIRST_SEED=71 MINUTES=1,5 by default)
# Arenas (the best published function each is measured against):
#   free16x5     16 bits, 5 free steps                  (6.7335e-3, [8 a3d3 7 4b2d 9])
#   shape16x2    16 bits, xsr,mul,xsr,mul,xsr           (6.7335e-3)
#   free16x7     16 bits, 7 free steps                  (2.4438e-3, [11 b663 3 897d 6 ea57 8])
#   shape16x3    16 bits, 3 rounds                      (2.4438e-3)
#   shape16adds  16 bits, add-shift,xsr x 4             (4.0793e-3, [4 7 2 5 3 4 8 6])
#   free32x5     32 bits, 5 free steps                  (5.8666e-6, [16 21f0aaad 15 735a2d97 15])
#   shape32x2    32 bits, xsr,mul,xsr,mul,xsr           (5.8666e-6)
#                (the best published 2-round: hash-prospector issue 19, comment of 2022-05-07,
#                the splitmix32 finaliser; rows measured before issue 51 name the same
#                thread's earlier [16 21f0aaad 15 f35a2d97 15], 5.9001e-6, as the record)
#   free32x7     32 bits, 7 free steps                  (2.2340e-7, triple32 [17 ed5ad4bb 11 ac4c1b51 15 31848bab 14])
#   shape32x3    32 bits, 3 rounds                      (2.2340e-7)
# PLAIN=1 switches the memetic operators off (the tournament as it was before issue 39).
# EXTRA: JSON merged over the arena's configuration (top-level keys replace), e.g.
# EXTRA='{"local_search":{"iterated":false}}' LABEL=iterated-off.
# PARALLEL=1 runs the seeds at the same time (a busy host: SEEDS processes of 2 threads each
# on this machine's cores) into ARENA/parallel-LABEL/, tabled in its seeds_LABEL.md.
# LABEL names the rows (default memetic): a new row for the same arena, e.g. after a change
# of the search, without mixing its seeds with the earlier rows'.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="$here/../build/release"
if [ $# -gt 0 ] && [ -d "$1" ]; then build="$1"; shift; fi
[ $# -gt 0 ] || { echo "usage: bench/records.sh [BUILD_DIR] ARENA..." >&2; exit 2; }
minutes="${MINUTES:-1,5}"
cmake --build "$build" --target bench_evolve >/dev/null
commit="$(git -C "$here/.." rev-parse --short HEAD)"
[ -z "$(git -C "$here/.." status --porcelain -- avalanche evolver mixer jit)" ] || commit="$commit (with uncommitted changes)"
plain='{}'
label="${LABEL:-memetic}"
if [ "${PLAIN:-0}" = 1 ]; then
  plain='{"memetic":{"local_search_rate":0,"crossover_rate":0,"species_rate":0,"shape_share":1}}'
  label=plain
fi
for arena in "$@"; do
  case "$arena" in
    free16x5) json='{"width":16,"max_steps":5}' ;;
    shape16x2) json='{"width":16,"kind_sequence":["xsr","mul","xsr","mul","xsr"]}' ;;
    free16x7) json='{"width":16,"max_steps":7}' ;;
    shape16x3) json='{"width":16,"max_steps":7,"kind_sequence":["xsr","mul","xsr","mul","xsr","mul","xsr"]}' ;;
    shape16adds) json='{"width":16,"max_steps":8,"kind_sequence":["add-shift","xsr","add-shift","xsr","add-shift","xsr","add-shift","xsr"]}' ;;
    free32x5) json='{"width":32,"max_steps":5}' ;;
    shape32x2) json='{"width":32,"kind_sequence":["xsr","mul","xsr","mul","xsr"]}' ;;
    free32x7) json='{"width":32,"max_steps":7}' ;;
    shape32x3) json='{"width":32,"max_steps":7,"kind_sequence":["xsr","mul","xsr","mul","xsr","mul","xsr"]}' ;;
    *) echo "records.sh: unknown arena '$arena'" >&2; exit 2 ;;
  esac
  config=$(python3 -c 'import json,sys; a=json.loads(sys.argv[1]); [a.update(json.loads(x)) for x in sys.argv[2:]]; print(json.dumps(a))' "$json" "$plain" "${EXTRA:-{\}}")
  out="$here/results/records/$arena"
  mkdir -p "$out"
  {
    echo "$(date -u +%FT%TZ) $arena $label $config commit $commit seeds ${SEEDS:-3} from ${FIRST_SEED:-71}"
    echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) cores; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
  } | tee -a "$out/seeds.log"
  if [ "${PARALLEL:-0}" = 1 ]; then
    # Every seed at once, each its own process (2 threads each): the machine is busy by
    # design. Each seed writes its own folder; their rows are then joined into one
    # seeds.csv there and tabled by bench_evolve --table (seeds_LABEL.md).
    par="$out/parallel-$label"
    mkdir -p "$par"
    pids=()
    for ((s = ${FIRST_SEED:-71}; s < ${FIRST_SEED:-71} + ${SEEDS:-3}; ++s)); do
      mkdir -p "$par/seed-$s"
      "$build/bench/bench_evolve" --seeds 1 --first-seed "$s" --minutes "$minutes" \
        --out "$par/seed-$s" --label "$label" --config "$config" > "$par/seed-$s/out.txt" 2>&1 &
      pids+=($!)
    done
    for p in "${pids[@]}"; do wait "$p"; done
    cat "$par"/seed-*/out.txt | tee -a "$out/seeds.log"
    first=1
    for f in "$par"/seed-*/seeds.csv; do
      if [ $first = 1 ]; then cat "$f"; first=0; else tail -n +2 "$f"; fi
    done > "$par/seeds.csv"
    "$build/bench/bench_evolve" --table "$par" --label "$label" | tee -a "$out/seeds.log"
  else
    "$build/bench/bench_evolve" --seeds "${SEEDS:-3}" --first-seed "${FIRST_SEED:-71}" --minutes "$minutes" \
      --out "$out" --label "$label" --config "$config" | tee -a "$out/seeds.log"
  fi
  echo "$(date -u +%FT%TZ) $arena load after: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out/seeds.log"
done
