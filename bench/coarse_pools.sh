#!/usr/bin/env bash
# Do healthy pools leave the noise floor of their first sample count before a trap restart
# could fire? A trap restart (restart.trap_tournaments, default 4000) needs at least that many
# tournaments of a coarse pool, so a run that scores with more samples by then is never
# trap-restarted. For each width and seed: one 5-step run on one worker (reproducible) with
# the default configuration and a budget of that many tournaments; reports the sample count
# it ended on (more than precision.initial_samples, 16384: it left the floor) and its restarts.
# Two runs at a time (one per core). THREADS= gives each run more workers (then one run at a
# time; runs of more than one worker are not reproducible).
# Usage: bench/coarse_pools.sh [BUILD_DIR] [WIDTHS] [SEEDS]   (default build/release "24 32 64" "1 2 3")
# Writes bench/results/restarts/coarse_pools.md and .csv (OUT= to change). TOURNAMENTS= sets
# the budget; CONFIG= a run configuration JSON file for every run (its text goes into the
# report; bench/configs/no_trap_restarts.json is the control).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/release}
read -r -a widths <<< "${2:-24 32 64}"
read -r -a seeds <<< "${3:-1 2 3}"
tournaments=${TOURNAMENTS:-4000}
threads=${THREADS:-1}
out=${OUT:-bench/results/restarts}
exe="$build/cli/mixforge"
config_args=()
if [ -n "${CONFIG:-}" ]; then config_args=(--config "$CONFIG"); fi
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

one() {  # width seed: writes $work/W_S.json
  local d="$work/data_$1_$2"
  "$exe" evolve --width "$1" --max-steps 5 --tournaments "$tournaments" --threads "$threads" --seed "$2" --data "$d" \
    "${config_args[@]}" \
    > "$work/log_$1_$2" 2>&1
  local id
  id=$("$exe" runs list --data "$d" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["id"])')
  "$exe" runs show "$id" --json --data "$d" > "$work/$1_$2.json"
}

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
jobs=()
for w in "${widths[@]}"; do for s in "${seeds[@]}"; do jobs+=("$w $s"); done; done
at_once=2
if [ "$threads" -gt 1 ]; then at_once=1; fi
for ((i = 0; i < ${#jobs[@]}; i += at_once)); do
  # shellcheck disable=SC2086
  one ${jobs[i]} &
  # shellcheck disable=SC2086
  if ((at_once == 2 && i + 1 < ${#jobs[@]})); then one ${jobs[i + 1]} & fi
  wait
done

python3 - "$work" "$out" "$tournaments" "$load_before" "$(cut -d' ' -f1-3 /proc/loadavg)" \
  "$(git describe --always --dirty)" "${widths[*]}" "${seeds[*]}" "${CONFIG:-}" "$build" "$threads" <<'EOF'
import json, sys, datetime
work, out, tournaments, before, after, commit, widths, seeds, config, build, threads = sys.argv[1:]
rows = []
for w in widths.split():
    for s in seeds.split():
        d = json.load(open(f"{work}/{w}_{s}.json"))
        c = d["counters"]
        lead = d["leaders"][0] if d["leaders"] else None
        initial = d["config"]["precision"]["initial_samples"]
        rows.append((w, s, c["tournaments"], d["current_samples"], initial, c["restarts"], round(c["elapsed_s"]),
                     lead["chi2"] if lead else float("nan"), lead["samples"] if lead else 0,
                     d["best"]["chi2"] if d.get("best") else float("nan"),
                     d["best"]["samples"] if d.get("best") else 0))
with open(f"{out}/coarse_pools.csv", "w") as f:
    f.write("width,seed,tournaments,current_samples,initial_samples,restarts,seconds,best_leader_chi2,best_leader_samples,"
            "run_best_chi2,run_best_samples\n")
    for r in rows: f.write(",".join(str(x) for x in r) + "\n")
with open(f"{out}/coarse_pools.md", "w") as f:
    f.write(f"# Do healthy pools leave the noise floor before a trap restart could fire? "
            f"({datetime.datetime.utcnow():%Y-%m-%dT%H:%MZ}, commit {commit})\n\n")
    workers = "one worker" if threads == "1" else f"{threads} workers"
    at_once = "two runs at a time" if threads == "1" else "one run at a time"
    f.write(f"5 steps, {'the configuration below' if config else 'default configuration'}, {workers}, {tournaments} tournaments "
            f"(`{'CONFIG=' + config + ' ' if config else ''}{'' if threads == '1' else 'THREADS=' + threads + ' '}"
            f"TOURNAMENTS={tournaments} bench/coarse_pools.sh "
            f"{build} \"{widths}\" \"{seeds}\"`); {at_once}. Load before: {before}; after: {after}.\n\n")
    if config:
        f.write(f"Configuration (`{config}`): `{open(config).read().strip()}`\n\n")
    f.write("| width | seed | tournaments | sample count at the end | left the floor | restarts | seconds "
            "| best leader, chi2 (its samples) | run's best, chi2 (its samples) |\n")
    f.write("|---|---|---|---|---|---|---|---|---|\n")
    for w, s, t, cur, ini, rs, sec, chi2, ns, bchi2, bns in rows:
        f.write(f"| {w} | {s} | {t} | {cur} | {'yes' if cur > ini else '**no**'} | {rs} | {sec} | {chi2:.4g} ({ns}) "
                f"| {bchi2:.4g} ({bns}) |\n")
print(open(f"{out}/coarse_pools.md").read())
EOF
