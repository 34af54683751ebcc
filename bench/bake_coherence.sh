#!/usr/bin/env bash
# Ray coherence of the baker (issue 9, benchmark 2): bench_bake_coherence on scenes of
# 2,097,184 triangles (the sheet and the clutter of occluders), the baker's order against
# the same rays in random order, 5 trials interleaved. Writes
# bench/results/bake/coherence.txt (sheet) and coherence_clutter.txt, each with the load
# average around it. Extra options go to both runs (e.g. --vulkan 1). GRID=N builds scenes of
# 2 N^2 triangles instead (default 1024: 2,097,152), written to coherence_gridN.txt and
# coherence_clutter_gridN.txt. SPP=S traces S hemisphere rays per texel instead of 64 (the
# baker's own default is 256), written to coherence_sppS.txt and coherence_clutter_sppS.txt.
#
#   [GRID=N] [SPP=S] bench/bake_coherence.sh [BUILD_DIR] [bench_bake_coherence options]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="${1:-$here/../build/release}"
shift || true
mkdir -p "$here/results/bake"
cmake --build "$build" --target bench_bake_coherence
for occluders in sheet clutter; do
  name=coherence
  [ "$occluders" = sheet ] || name="coherence_$occluders"
  [ -z "${GRID:-}" ] || name="${name}_grid$GRID"
  [ -z "${SPP:-}" ] || name="${name}_spp$SPP"
  out="$here/results/bake/$name.txt"
  {
    echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) cores, commit $(git -C "$here/.." rev-parse --short HEAD); load before: $(cut -d' ' -f1-3 /proc/loadavg)"
    "$build/bench/bench_bake_coherence" --occluders "$occluders" --trials 5 ${GRID:+--grid "$GRID"} ${SPP:+--spp "$SPP"} "$@"
    echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
  } 2>&1 | tee "$out"
done
