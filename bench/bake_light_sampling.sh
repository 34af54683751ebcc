#!/usr/bin/env bash
# What next-event estimation with MIS buys on the Cornell box's area light: the direct pass
# alone (--bounces 0, the only pass light sampling changes), RMSE against one reference
# (--light-sampling mis, sobol-owen, REFERENCE_SPP spp, seed 99) for --light-sampling
# hemisphere and mis at 16, 64 and 256 spp (mixforge-cmj, seed 1). A hemisphere-only
# reference at the same spp is baked too; its distance to the MIS reference checks that the
# two modes converge to the same lightmap (it should be about the hemisphere reference's own
# noise). Writes bench/results/bake/light_sampling.csv and light_sampling_summary.txt.
#
#   bench/bake_light_sampling.sh [BUILD_DIR] [REFERENCE_SPP]   (defaults build/release, 4096)
# Environment: TEXEL (world units per texel, default 0.1, as bench/bake_convergence.sh).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="${1:-$here/../build/release}"
ref_spp="${2:-4096}"
texel="${TEXEL:-0.1}"
out="$here/results/bake"
work="$(mktemp -d /tmp/mixforge-bake-light-XXXXXX)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"
cmake --build "$build" --target mixforge
exe="$build/cli/mixforge"
load() { cut -d' ' -f1-3 /proc/loadavg; }

echo "bake_light_sampling: references at $ref_spp spp (sobol-owen, seed 99), texel $texel, direct pass only; load $(load)"
for mode in mis hemisphere; do
  "$exe" bake cornell --backend embree --light-sampling "$mode" --sampler sobol-owen --spp "$ref_spp" --bounces 0 \
    --texel "$texel" --seed 99 --out "$work/reference-$mode" --json > "$work/reference-$mode.log"
done
"$exe" bake cornell --backend embree --light-sampling hemisphere --sampler sobol-owen --spp "$ref_spp" --bounces 0 \
  --texel "$texel" --seed 99 --reference "$work/reference-mis/lightmap.exr" --out "$work/check" --json > "$work/check.log"
check_rmse="$(tail -1 "$work/check.log" | python3 -c 'import json, sys; print(json.loads(sys.stdin.read())["rmse"])')"

echo "mode,spp,rmse,seconds,rays,heuristic" > "$out/light_sampling.csv.tmp"
for mode in hemisphere mis; do
  for spp in 16 64 256; do
    "$exe" bake cornell --backend embree --light-sampling "$mode" --spp "$spp" --bounces 0 --texel "$texel" --seed 1 \
      --reference "$work/reference-mis/lightmap.exr" --out "$work/$mode-$spp" --json > "$work/run.log"
    tail -1 "$work/run.log" | python3 -c '
import json, sys
r = json.loads(sys.stdin.read())
ls = r["light_sampling"]
print("%s,%d,%.6g,%.3f,%d,%s" % (ls["mode"], r["spp"], r["rmse"], r["passes"][0]["seconds"], r["rays"], ls["heuristic"] or ""))
' >> "$out/light_sampling.csv.tmp"
    tail -1 "$out/light_sampling.csv.tmp"
  done
done
mv "$out/light_sampling.csv.tmp" "$out/light_sampling.csv"

python3 - "$out/light_sampling.csv" "$ref_spp" "$texel" "$check_rmse" "$(load)" > "$out/light_sampling_summary.txt" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
by = {}
for r in rows:
    by.setdefault(r["mode"], {})[int(r["spp"])] = r
print(f"Cornell box, direct pass (--bounces 0), texel {sys.argv[3]}, mixforge-cmj seed 1; reference: "
      f"--light-sampling mis, sobol-owen, {sys.argv[2]} spp, seed 99; load average at the end {sys.argv[5]}")
print(f"hemisphere-only reference ({sys.argv[2]} spp) against the MIS reference: rmse {float(sys.argv[4]):.4g}")
print("spp   hemisphere rmse  mis rmse     mis / hemisphere   seconds (hemisphere, mis)")
for spp in sorted(by.get("mis", {})):
    h, m = by["hemisphere"][spp], by["mis"][spp]
    print(f"{spp:<5} {float(h['rmse']):<16.4g} {float(m['rmse']):<12.4g} {float(m['rmse']) / float(h['rmse']):<18.4f} "
          f"{float(h['seconds']):.2f}, {float(m['seconds']):.2f}")
PY
cat "$out/light_sampling_summary.txt"
