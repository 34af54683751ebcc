#!/usr/bin/env bash
# The baker's lightmap against a reference renderer, Blender's Cycles, on a Quake .map (issue
# 40, "Checked against a peer"): touching brushes, delay-2 lamps. Method, units, bounce
# mapping and the figures: bench/results/bake/peer/README.md.
#
#   bench/peer_cycles.sh [--build DIR] [--spp N] [--samples N] [--bounces B] [--texel T]
#                        [--threads T] [--seeds N] [--out DIR] [--work DIR] MAP...
#
# For each MAP: `mixforge bake MAP --obj` with seeds 1..N (default 4; Embree, --spp,
# --bounces, --texel; defaults 256, 2, 4), then Cycles bakes the same triangles into the same
# atlas with seeds 1..N (bench/peer_cycles_bake.py: DIFFUSE direct + indirect without colour =
# irradiance / pi, max bounces = --bounces, --samples per texel), then
# bench/peer_cycles_compare.py compares them texel by texel in classes by distance to the
# face's edge, with each renderer's noise from the spread over its seeds. Writes OUT/NAME.txt
# (the tables), OUT/NAME.csv and OUT/output.txt (everything, with the settings, date and
# load), OUT defaulting to bench/results/bake/peer. --work DIR keeps the bakes there (default:
# a temporary folder, removed at the end).
#
# Needs Blender (Cycles) with numpy for its Python: on Debian bookworm
# `apt-get install blender python3-numpy` (Blender 3.4). A bench tool only: nothing of
# mixforge needs Blender to build, test or run, and CI does not install it.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="$here/../build/release"
out="$here/results/bake/peer"
spp=256 samples=256 bounces=2 texel=4 threads=2 seeds=4
maps=() work=""
while (($#)); do
  case "$1" in
    --build) build="$2"; shift 2 ;;
    --spp) spp="$2"; shift 2 ;;
    --samples) samples="$2"; shift 2 ;;
    --bounces) bounces="$2"; shift 2 ;;
    --texel) texel="$2"; shift 2 ;;
    --threads) threads="$2"; shift 2 ;;
    --seeds) seeds="$2"; shift 2 ;;
    --work) work="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
    -*) echo "peer_cycles: unknown option $1" >&2; exit 2 ;;
    *) maps+=("$1"); shift ;;
  esac
done
((${#maps[@]})) || { echo "peer_cycles: give at least one .map (e.g. bench/peer/crates.map)" >&2; exit 2; }

if ! command -v blender >/dev/null 2>&1; then
  echo "peer_cycles: blender is not installed, so there is no reference renderer to compare with." >&2
  echo "peer_cycles: on Debian bookworm: apt-get install blender python3-numpy (Blender 3.4; a bench tool only)." >&2
  exit 3
fi
blender=(blender -b --factory-startup --python-exit-code 1)
if ! "${blender[@]}" --python-expr 'import numpy' >/dev/null 2>&1; then
  echo "peer_cycles: Blender's Python has no numpy: apt-get install python3-numpy" >&2
  exit 3
fi

cmake --build "$build" --target mixforge >/dev/null
mixforge="$build/cli/mixforge"
mkdir -p "$out"
if [ -z "$work" ]; then
  work="$(mktemp -d /tmp/mixforge-peer-XXXXXX)"
  trap 'rm -rf "$work"' EXIT
fi
log="$out/output.txt"
{
  echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) cores, commit $(git -C "$here/.." rev-parse --short HEAD)$(git -C "$here/.." diff --quiet HEAD -- baker cli bench 2>/dev/null || echo '+changes')"
  echo "# $(blender --version 2>/dev/null | head -1); uptime before: $(uptime)"
  echo "# mixforge: --spp $spp --bounces $bounces --texel $texel --backend embree, seeds 1..$seeds; Cycles: $samples samples, max bounces $bounces, seeds 1..$seeds, $threads threads"
} | tee "$log"
for map in "${maps[@]}"; do
  name="$(basename "$map" .map)"
  mkdir -p "$work/$name"
  for seed in $(seq "$seeds"); do
    d="$work/$name/mixforge$seed"
    /usr/bin/time -f "# mixforge seed $seed: %e s wall" "$mixforge" bake "$map" --obj --spp "$spp" \
      --bounces "$bounces" --texel "$texel" --backend embree --seed "$seed" --out "$d" --json \
      > "$d.json" 2> "$d.err" || { cat "$d.err" >&2; exit 1; }
    tail -1 "$d.err" | tee -a "$log"
    python3 -c 'import json,sys; r=json.loads(open(sys.argv[1]).read().splitlines()[-1]); b=r["back_hits"]; print("# mixforge: %d triangles, %d texels, atlas %dx%d, %d rays; hemisphere rays that hit a back: %d" % (r["scene"]["triangles"], r["texels"], r["atlas"]["width"], r["atlas"]["height"], r["rays"], b["rays"]))' "$d.json" | tee -a "$log"
  done
  for seed in $(seq "$seeds"); do
    "${blender[@]}" --python "$here/peer_cycles_bake.py" -- "$work/$name/mixforge1/lightmap.obj" \
      "$work/$name/cycles$seed.npy" --samples "$samples" --bounces "$bounces" --seed "$seed" \
      --threads "$threads" --map "$map" > "$work/$name/cycles$seed.log" 2>&1 ||
      { cat "$work/$name/cycles$seed.log" >&2; exit 1; }
    grep '^peer_cycles_bake:' "$work/$name/cycles$seed.log" | sed 's/^/# /' | tee -a "$log"
  done
  # The atlas is the same for every seed (it depends on the scene and the texel only).
  for seed in $(seq 2 "$seeds"); do
    cmp -s "$work/$name/mixforge1/lightmap.obj" "$work/$name/mixforge$seed/lightmap.obj" ||
      { echo "peer_cycles: the seeds' atlases differ" >&2; exit 1; }
  done
  exrs=() npys=()
  for seed in $(seq "$seeds"); do
    exrs+=("$work/$name/mixforge$seed/lightmap.exr")
    npys+=("$work/$name/cycles$seed.npy")
  done
  "${blender[@]}" --python "$here/peer_cycles_compare.py" -- "$name" "$work/$name/mixforge1/lightmap.obj" \
    "$out/$name.csv" "$seeds" "${exrs[@]}" "${npys[@]}" > "$work/$name/compare.log" 2>&1 ||
    { cat "$work/$name/compare.log" >&2; exit 1; }
  sed -n '/^$/,$p' "$work/$name/compare.log" | grep -v '^Blender quit' > "$out/$name.txt"
  tee -a "$log" < "$out/$name.txt"
done
echo "# uptime after: $(uptime)" | tee -a "$log"
