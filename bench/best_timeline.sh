#!/usr/bin/env bash
# When does a run's best improve? Runs `mixforge evolve` for SEEDS seeds at once (from
# FIRST_SEED, 2 threads each: a busy host, like records.sh PARALLEL=1), then tables each
# run's hall of fame (`runs export --json`: the time and tournament of every new best, its
# exact chi2 and program) and its counters, into bench/results/evolve/timeline/LABEL.md.
#
#   bench/best_timeline.sh [BUILD_DIR]     (SEEDS=3 FIRST_SEED=74 SECONDS_BUDGET=600 WIDTH=32
#                                           STEPS=5 LABEL=default CONFIG=JSON file or empty)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="${1:-$here/../build/release}"
mixforge="$build/cli/mixforge"
seeds="${SEEDS:-3}" first="${FIRST_SEED:-74}" seconds="${SECONDS_BUDGET:-600}"
label="${LABEL:-default}"
out="$here/results/evolve/timeline"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"
extra=()
[ -n "${CONFIG:-}" ] && extra=(--config "$CONFIG")
{
  echo "# $(date -u +%FT%TZ) bench/best_timeline.sh: $seeds seeds from $first at once, ${seconds} s each, width ${WIDTH:-32}, ${STEPS:-5} steps, 2 threads, label $label, commit $(git -C "$here/.." rev-parse --short HEAD)"
  echo "# cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) cores; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
} > "$work/head"
pids=()
for ((s = first; s < first + seeds; ++s)); do
  "$mixforge" evolve --width "${WIDTH:-32}" --max-steps "${STEPS:-5}" --seconds "$seconds" --seed "$s" --threads 2 \
    --data "$work/d$s" --json "${extra[@]}" > "$work/o$s.txt" 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$work/head"
for ((s = first; s < first + seeds; ++s)); do
  "$mixforge" runs export --data "$work/d$s" --json "$(head -1 "$work/o$s.txt" | awk '{print $2}')" > "$work/e$s.json"
done
python3 - "$work" "$first" "$seeds" > "$out/$label.md" <<'PY'
import json, sys
work, first, seeds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
print(open(f"{work}/head").read().rstrip())
for s in range(first, first + seeds):
    d = json.load(open(f"{work}/e{s}.json"))
    c = d["counters"]
    print(f"\n## seed {s}\n")
    print(f"{c['tournaments']} tournaments, {c['exact_scored']} exact scores, {c['local_improvements']} local moves, "
          f"{c['local_neighbours']} neighbours compared, {c['restarts']} restarts, {c['elapsed_s']:.0f} s\n")
    print("| s | tournaments | exact chi2 | program |\n|---|---|---|---|")
    for e in sorted(d["hall_of_fame"], key=lambda e: e["elapsed_s"]):
        assert e["exact"]
        print(f"| {e['elapsed_s']:.1f} | {e['tournaments']} | {e['chi2']:.4e} | `{e['short']}` |")
PY
cat "$out/$label.md"
