#!/usr/bin/env bash
# Islands at equal wall time: 1, 2 and 4 MPI ranks (oversubscribed on a small machine),
# each island a 32-bit 5-step run on one worker thread, all for the same seconds.
# Usage: bench/islands.sh [BUILD_DIR] [SECONDS] [RANKS...]   (default build/release 120 1 2 4)
# Writes bench/results/islands/islands.md and .csv (OUT= to change), with the load average.
# SEED= (default 1): island r of every configuration uses seed SEED + r.
# CONFIG= a run configuration JSON file (schema/run.schema.json) for every island; its text
# goes into the report.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/release}
seconds=${2:-120}
shift $(( $# > 2 ? 2 : $# )) || true
ranks=("$@")
[ ${#ranks[@]} -gt 0 ] || ranks=(1 2 4)
out=${OUT:-bench/results/islands}
seed=${SEED:-1}
config_args=()
if [ -n "${CONFIG:-}" ]; then config_args=(--config "$CONFIG"); fi
exe="$build/cli/mixforge"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cores=$(nproc)
csv="$out/islands.csv"
echo "ranks,seconds,cores,tournaments_total,tournaments_per_s_per_core,best_chi2_exact,migrants_accepted,restarts,best_program" > "$csv"
{
  cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')
  echo "# Islands at equal wall time ($(date -u +%Y-%m-%dT%H:%MZ), commit $(git describe --always --dirty), $cores cores: $cpu)"
  echo
  echo "Each island: 32 bits, 5 steps, 1 worker thread, seed $seed + rank, migration of the best 4 every 2000"
  echo "tournaments (ring). Command: \`${CONFIG:+CONFIG=$CONFIG }SEED=$seed bench/islands.sh $build $seconds ${ranks[*]}\`."
  if [ -n "${CONFIG:-}" ]; then echo; echo "Configuration (\`$CONFIG\`): \`$(tr -d '\n' < "$CONFIG")\`"; fi
  echo
  echo "| ranks | load before | tournaments (all islands) | tournaments/s per core | best exact chi2 | migrants accepted | restarts |"
  echo "|---|---|---|---|---|---|---|"
} > "$out/islands.md"
for k in "${ranks[@]}"; do
  load=$(cut -d' ' -f1-3 /proc/loadavg)
  echo "== $k rank(s), ${seconds}s (load $load)"
  mpirun --oversubscribe -np "$k" "$exe" evolve --islands --width 32 --max-steps 5 --seconds "$seconds" --threads 1 \
    --device cpu --seed "$seed" "${config_args[@]}" --data "$work/r$k" --json > "$work/r$k.out" 2> "$work/r$k.err"
  tail -n 1 "$work/r$k.out" > "$work/r$k.json"
  python3 - "$work/r$k.json" "$k" "$seconds" "$cores" "$load" "$csv" "$out/islands.md" << 'PY'
import json, sys
j = json.load(open(sys.argv[1])); k, secs, cores, load = int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
isl = j["islands"]
t = sum(s["counters"]["tournaments"] for s in isl)
acc = sum(s["migrants_accepted"] for s in isl)
rst = sum(s["counters"].get("restarts", 0) for s in isl)
best = j["best"]
chi2 = best["chi2_exact"] if best and best.get("chi2_exact") is not None else None
per_core = t / secs / min(cores, k) if k else 0
with open(sys.argv[6], "a") as f:
    f.write("%d,%g,%d,%d,%.1f,%s,%d,%d,%s\n" % (k, secs, cores, t, per_core, "%.5g" % chi2 if chi2 else "", acc,
                                               rst, best["short"] if best else ""))
with open(sys.argv[7], "a") as f:
    f.write("| %d | %s | %d | %.0f | %s | %d | %d |\n" % (k, load, t, per_core, "%.4e" % chi2 if chi2 else "-", acc, rst))
print("ranks %d: %d tournaments, %.0f per s per core, best %s" % (k, t, per_core, chi2))
PY
done
{
  echo
  echo "tournaments/s per core divides by min(cores, ranks): with more ranks than cores the ranks share them."
  echo "Load after: $(cut -d' ' -f1-3 /proc/loadavg)."
} >> "$out/islands.md"
cat "$out/islands.md"
