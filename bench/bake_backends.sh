#!/usr/bin/env bash
# Throughput of the baker's ray-tracing back ends on the built-in Cornell box: the same bake
# (same rays, bit for bit) with --backend embree and --backend vulkan, in one run, so the
# ratio compares like with like on a machine shared with other work.
#   bench/bake_backends.sh [MIXFORGE] [SPP]   (default build/release/cli/mixforge, 256 spp)
# Writes bench/results/bake/backends.csv and the two report.json files beside it.
set -euo pipefail
cd "$(dirname "$0")/.."
exe=${1:-build/release/cli/mixforge}
spp=${2:-256}
out=bench/results/bake
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# lavapipe's worker threads: the machine's cores (2 here), as Embree's TBB uses.
export LP_NUM_THREADS=${LP_NUM_THREADS:-$(nproc)}
echo "backend,device,spp,bounces,texels,rays,rays_per_s,bvh_s,integrate_s,ratio_to_embree" > "$tmp/backends.csv"
embree_rps=""
for backend in embree vulkan; do
  if ! "$exe" bake --backend "$backend" --spp "$spp" --bounces 1 --out "$tmp/$backend" --json > "$tmp/$backend.log" 2>&1; then
    echo "bake_backends: --backend $backend failed:" >&2
    tail -3 "$tmp/$backend.log" >&2
    continue
  fi
  cp "$tmp/$backend/report.json" "$out/report_$backend.json"
  python3 - "$tmp/$backend/report.json" "$embree_rps" >> "$tmp/backends.csv" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
base = float(sys.argv[2]) if sys.argv[2] else r["rays_per_s"]
print(",".join(str(x) for x in [r["backend"], '"' + r.get("backend_device", "") + '"', r["spp"], r["bounces"],
      r["texels"], r["rays"], round(r["rays_per_s"]), round(r["phases"]["bvh_s"], 4),
      round(r["phases"]["integrate_s"], 3), round(r["rays_per_s"] / base, 3)]))
PY
  [ "$backend" = embree ] && embree_rps=$(python3 -c "import json;print(json.load(open('$tmp/embree/report.json'))['rays_per_s'])")
done
cp "$tmp/backends.csv" "$out/backends.csv"
{ echo "# $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), LP_NUM_THREADS=$LP_NUM_THREADS"; cat "$out/backends.csv"; } > "$out/backends.txt"
cat "$out/backends.txt"
