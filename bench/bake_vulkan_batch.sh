#!/usr/bin/env bash
# Vulkan's tiles per submission (issue 40 part 4) on lavapipe (or whatever Vulkan device the
# loader gives): the same Cornell bake with --backend vulkan at 1 tile per call (the bake's
# batch before: one tile's stratum, ~220 rays) and at larger batches, Embree alongside, all
# in one run so the ratios compare like with like on a shared machine; then --backend auto
# with lavapipe tried, for its trial's two rates. The lightmaps must be the same bits.
#   bench/bake_vulkan_batch.sh [MIXFORGE] [SPP] [BATCHES...]
#   (default build/release/cli/mixforge, 32 spp, batches "1 4 16 64 0"; 0 = the back end's own)
# Writes bench/results/bake/vulkan_batch.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
exe=${1:-build/release/cli/mixforge}
spp=${2:-32}
shift $(( $# > 2 ? 2 : $# )) || true
batches=${*:-1 4 16 64 0}
out=bench/results/bake
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export LP_NUM_THREADS=${LP_NUM_THREADS:-$(nproc)}
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
{
  echo "# $(date -u +%Y-%m-%dT%H:%MZ), commit $commit, $(nproc) cores, LP_NUM_THREADS=$LP_NUM_THREADS"
  echo "# uptime at start: $(uptime)"
  echo "# $exe bake cornell --spp $spp --bounces 1 --backend B --tiles-per-batch N"
  echo "backend,tiles_per_batch,rays,integrate_s,rays_per_s,ratio_to_vulkan_1_tile,same_lightmap_as_vulkan_1_tile"
} > "$tmp/table.txt"
run() {  # backend tiles_per_batch
  local dir="$tmp/$1_$2"
  "$exe" bake --backend "$1" --tiles-per-batch "$2" --spp "$spp" --bounces 1 --out "$dir" --json > "$dir.log" 2>&1 || {
    echo "bake_vulkan_batch: --backend $1 --tiles-per-batch $2 failed:" >&2; tail -3 "$dir.log" >&2; return 1; }
}
run vulkan 1
for b in $batches; do [ "$b" = 1 ] || run vulkan "$b"; done
run embree 0
for d in vulkan_1 $(for b in $batches; do [ "$b" = 1 ] || echo "vulkan_$b"; done) embree_0; do
  same=$(cmp -s "$tmp/vulkan_1/lightmap.exr" "$tmp/$d/lightmap.exr" && echo yes || echo no)
  python3 - "$tmp/$d/report.json" "$tmp/vulkan_1/report.json" "$same" >> "$tmp/table.txt" <<'PY'
import json, sys
r, base = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
print(",".join(str(x) for x in [r["backend"], r["tiles_per_batch"], r["rays"], round(r["phases"]["integrate_s"], 3),
      round(r["rays_per_s"]), round(r["rays_per_s"] / base["rays_per_s"], 3), sys.argv[3]]))
PY
done
# auto, lavapipe tried: the trial's two measures and the choice.
"$exe" bake --backend auto --auto-tries-cpu-vulkan --spp "$spp" --bounces 1 --out "$tmp/auto" --json > "$tmp/auto.log" 2>&1
python3 - "$tmp/auto/report.json" >> "$tmp/table.txt" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print("# --backend auto --auto-tries-cpu-vulkan: ran " + r["backend"] + ", trial " + json.dumps(r["backend_trial"]))
print("# " + r["backend_choice"])
print("# phases: " + json.dumps(r["phases"]))
PY
echo "# uptime at end: $(uptime)" >> "$tmp/table.txt"
cp "$tmp/table.txt" "$out/vulkan_batch.txt"
cat "$out/vulkan_batch.txt"
