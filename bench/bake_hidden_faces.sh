#!/usr/bin/env bash
# Before/after picture of issue 40 part 1 (Quake faces hidden between touching brushes cut away
# as qbsp does; sky faces as sky windows): bakes one LibreQuake map with two `mixforge`
# binaries, the same options, and puts their previews and lightmaps side by side, labelled
# (bench/side_by_side.py, standard library only). Writes
# bench/results/bake/hidden_faces/{before_after.png,output.txt,report_before.json,
# report_after.json}.
#
#   bench/bake_hidden_faces.sh BEFORE_MIXFORGE AFTER_MIXFORGE
# The binaries are paths to `mixforge` executables, e.g. the parent of commit 1338543 built in
# a worktree (build/release/cli/mixforge there) and main's. Environment: MAP (default
# baker/scenes/librequake/end.map: two lights, a sky brush over the room and many touching
# brushes; 414 drawn sides, 198 of them kept now), SPP (default 256), TEXEL (world units per
# texel, default 8), BOUNCES (default 2), LABEL_BEFORE and
# LABEL_AFTER (default: the binaries' commits as `git describe` in their trees, if found).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
before="$(realpath "${1:?usage: bench/bake_hidden_faces.sh BEFORE_MIXFORGE AFTER_MIXFORGE}")"
after="$(realpath "${2:?usage: bench/bake_hidden_faces.sh BEFORE_MIXFORGE AFTER_MIXFORGE}")"
map="${MAP:-$here/../baker/scenes/librequake/end.map}"
spp="${SPP:-256}"
texel="${TEXEL:-8}"
bounces="${BOUNCES:-2}"
out="$here/results/bake/hidden_faces"
work="$(mktemp -d /tmp/mixforge-bake-hidden-faces-XXXXXX)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"
commit_of() { git -C "$(dirname "$1")" rev-parse --short HEAD 2>/dev/null || echo unknown; }
label_before="${LABEL_BEFORE:-BEFORE $(commit_of "$before")}"
label_after="${LABEL_AFTER:-AFTER $(commit_of "$after")}"
name="$(basename "$map")"
opts=(--spp "$spp" --bounces "$bounces" --texel "$texel" --seed 1 --backend embree)
{
  echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) cores; $name, ${opts[*]}"
  echo "# before: $before ($label_before)"
  echo "# after:  $after ($label_after)"
  for side in before after; do
    exe="$before"; [ "$side" = before ] || exe="$after"
    echo "# $side: load before: $(cut -d' ' -f1-3 /proc/loadavg)"
    "$exe" bake "$map" "${opts[@]}" --out "$work/$side" --json > "$work/$side.log"
    echo "# $side: load after: $(cut -d' ' -f1-3 /proc/loadavg)"
    cp "$work/$side/report.json" "$out/report_$side.json"
    python3 - "$side" "$work/$side/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[2]))
s = r["scene"]
print(f"{sys.argv[1]}: {s['triangles']} triangles, {r['texels']} texels, {r['rays']} rays, "
      f"{sum(p['seconds'] for p in r['passes']):.1f} s of passes, {r['rays_per_s'] / 1e6:.2f} Mrays/s")
PY
  done
} 2>&1 | tee "$out/output.txt"
python3 "$here/side_by_side.py" "$out/before_after.png" \
  "$name, $spp spp, $bounces bounces, texel $texel, Embree" \
  "$work/before" "$label_before" "$work/after" "$label_after" preview.png lightmap.png
echo "bake_hidden_faces: wrote $out/before_after.png ($(stat -c %s "$out/before_after.png") bytes)"
