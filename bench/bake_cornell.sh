#!/usr/bin/env bash
# The Cornell box as `mixforge bake` bakes it by default (mixforge-cmj, the default mixer
# family, Embree) at 256 spp and 2 bounces: the pictures README shows and the throughput
# figure (issue 9, benchmark 3). Writes bench/results/bake/cornell/{lightmap.png,
# preview.png,report.json,output.txt}.
#
#   bench/bake_cornell.sh [BUILD_DIR]
# Environment: SUFFIX (appended to the folder's name, e.g. SUFFIX=_2026-11-29 writes
# bench/results/bake/cornell_2026-11-29/ beside the earlier cornell/ instead of over it).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="${1:-$here/../build/release}"
out="$here/results/bake/cornell${SUFFIX:-}"
work="$(mktemp -d /tmp/mixforge-bake-cornell-XXXXXX)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"
cmake --build "$build" --target mixforge
{
  echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) cores, commit $(git -C "$here/.." rev-parse --short HEAD); load before: $(cut -d' ' -f1-3 /proc/loadavg)"
  "$build/cli/mixforge" bake cornell --spp 256 --bounces 2 --backend embree --out "$work" --json
  echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
} 2>&1 | tee "$out/output.txt"
cp "$work/lightmap.png" "$work/preview.png" "$work/report.json" "$out/"
python3 - "$out/report.json" <<'PY' | tee -a "$out/output.txt"
import json, sys
r = json.load(open(sys.argv[1]))
print(f"backend {r['backend']}, {r['texels']} texels, {r['rays']} rays, {r['rays_per_s'] / 1e6:.2f} Mrays/s overall")
for p in r["passes"]:
    print(f"  pass {p['pass']} ({p['kind']}): {p['rays_per_s'] / 1e6:.2f} Mrays/s, {p['seconds']:.2f} s")
PY
