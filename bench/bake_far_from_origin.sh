#!/usr/bin/env bash
# The Cornell box moved far from the origin (issue 53, "Far from the origin"): does a scene bake
# the same wherever it sits? `mixforge bake cornell --obj` writes the box as OBJ; each copy is
# that OBJ with every vertex moved by (d, d, -d) for d in OFFSETS, and, for d > 0, once more by
# a shift with a fraction, (d + 0.371, d - 0.613, -d - 0.293), so that the move is not a round
# number; each copy is baked with the same options and compared with the copy at 0: the mean
# of the lightmap (red channel, as docs/baking.md's earlier figures) and the RMSE of the whole
# lightmap over the mean (mixforge bake --reference: the lightmap.exr of the copy at 0, or for
# the shifts with a fraction, of the copy moved by the fraction alone, "0+", whose atlas has the
# same size: "(size)" where the sizes differ all the same). Writes
# bench/results/bake/far_from_origin/${NAME}.txt (default NAME: the binary's commit).
#
#   bench/bake_far_from_origin.sh [MIXFORGE]
# MIXFORGE: a `mixforge` executable (default build/release/cli/mixforge). Environment: SPP
# (default 64), BOUNCES (2), TEXEL (0.1), OFFSETS (default "1e3 1e4 1e5 1e6 1e7"), NAME,
# LABEL (a line saying which build this is).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
exe="$(realpath "${1:-$here/../build/release/cli/mixforge}")"
spp="${SPP:-64}"
bounces="${BOUNCES:-2}"
texel="${TEXEL:-0.1}"
offsets="${OFFSETS:-1e3 1e4 1e5 1e6 1e7}"
commit="$(git -C "$here/.." rev-parse --short HEAD)"
name="${NAME:-$commit}"
out="$here/results/bake/far_from_origin"
work="$(mktemp -d /tmp/mixforge-bake-far-XXXXXX)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"
opts=(--spp "$spp" --bounces "$bounces" --texel "$texel" --seed 1 --backend embree)
"$exe" bake cornell "${opts[@]}" --obj --out "$work/source" --json > /dev/null

# move D DX DY DZ: the source OBJ with every vertex moved, into $work/D/cornell.obj. Each
# coordinate is read as the float the baker traced and moved in double, printed so that it
# reads back as the same double.
move() {
  mkdir -p "$work/$1"
  cp "$work/source/lightmap.mtl" "$work/$1/"
  python3 - "$work/source/lightmap.obj" "$work/$1/cornell.obj" "$2" "$3" "$4" <<'PY'
import struct, sys
src, dst, shift = sys.argv[1], sys.argv[2], [float(a) for a in sys.argv[3:6]]
f32 = lambda t: struct.unpack("f", struct.pack("f", float(t)))[0]
with open(src) as i, open(dst, "w") as o:
    for line in i:
        if line.startswith("v "):
            xyz = [f32(t) + s for t, s in zip(line.split()[1:4], shift)]
            line = "v " + " ".join(repr(c) for c in xyz) + "\n"
        o.write(line)
PY
}

bake() {  # bake DIR [--reference EXR]: the report's path; a refused reference bakes without it
  local dir="$1"
  shift
  if ! "$exe" bake "$dir/cornell.obj" "${opts[@]}" --out "$dir/out" "$@" --json > "$dir/log" 2>&1; then
    echo "# $(basename "$dir"): $(tail -n 1 "$dir/log"); baked again without --reference" >&2
    "$exe" bake "$dir/cornell.obj" "${opts[@]}" --out "$dir/out" --json > "$dir/log"
  fi
  echo "$dir/out/report.json"
}

{
  echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), tree at commit $commit; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "# binary: $exe${LABEL:+ ($LABEL)}"
  echo "# the Cornell box as OBJ, ${opts[*]}"
  move 0 0 0 0
  rows=("0 0 0 0 $(bake "$work/0")")
  move 0+ 0.371 -0.613 -0.293
  rows+=("0+ 0.371 -0.613 -0.293 $(bake "$work/0+")")
  for d in $offsets; do
    read -r dx dy dz fx fy fz < <(python3 -c "d = float('$d'); print(d, d, -d, d + 0.371, d - 0.613, -d - 0.293)")
    move "$d" "$dx" "$dy" "$dz"
    rows+=("$d $dx $dy $dz $(bake "$work/$d" --reference "$work/0/out/lightmap.exr")")
    move "$d+" "$fx" "$fy" "$fz"
    rows+=("$d+ $fx $fy $fz $(bake "$work/$d+" --reference "$work/0+/out/lightmap.exr")")
  done
  printf '%s\n' "${rows[@]}" > "$work/rows"
  python3 - "$work/rows" <<'PY'
import json, sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
m0 = json.load(open(rows[0][4]))["radiance"]["mean"][0]
print(f"{'offset':>8} {'shift (x, y, z)':>42} {'texels':>7} {'mean R':>9} {'vs 0':>9} {'rmse/mean':>10}")
for name, x, y, z, path in rows:
    r = json.load(open(path))
    m = r["radiance"]["mean"][0]
    rmse = "-" if name in ("0", "0+") else "(size)" if r["rmse"] is None else f"{100 * r['rmse'] / m0:.3f} %"
    shift = "(" + ", ".join(f"{float(c):.10g}" for c in (x, y, z)) + ")"
    print(f"{name:>8} {shift:>42} {r['texels']:>7} {m:>9.6f} {100 * (m / m0 - 1):>+8.3f}% {rmse:>10}")
PY
  echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
} 2>&1 | tee "$out/$name.txt"
