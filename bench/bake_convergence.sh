#!/usr/bin/env bash
# Convergence of the lightmap baker per sampler (issue 9, benchmark 1): RMSE of the
# lightmap against a high-spp reference at 16, 64, 256 and 1024 spp for every sampler, on
# the built-in Cornell box. Writes bench/results/bake/convergence.csv, convergence_summary.txt (the
# log-log slopes and the ratios the issue asks for: mixforge-cmj against PCG white noise
# and against Owen-scrambled Sobol at 256 spp) and, with gnuplot, convergence.png.
#
#   bench/bake_convergence.sh [BUILD_DIR] [REFERENCE_SPP]   (defaults build/release, 16384)
# Environment: TEXEL (world units per texel, default 0.1: a coarse atlas keeps the
# reference affordable on 2 cores), BOUNCES (default 2), SCENE (default cornell; a .map or
# .obj path bakes that scene instead and names the files convergence_<name>.*, e.g.
# SCENE=baker/scenes/librequake/lqdm1.map TEXEL=32 bench/bake_convergence.sh build/release 4096),
# SUFFIX (appended to the file names, e.g. SUFFIX=_2026-11-29 writes convergence_lqdm1_2026-11-29.*
# beside the earlier files instead of over them).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="${1:-$here/../build/release}"
ref_spp="${2:-16384}"
texel="${TEXEL:-0.1}"
bounces="${BOUNCES:-2}"
scene="${SCENE:-cornell}"
name="$(basename "$scene")"; name="${name%.*}"
tag=""; [ "$name" = cornell ] || tag="_$name"
tag="$tag${SUFFIX:-}"
out="$here/results/bake"
work="$(mktemp -d /tmp/mixforge-bake-convergence-XXXXXX)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"
cmake --build "$build" --target mixforge
exe="$build/cli/mixforge"
load() { cut -d' ' -f1-3 /proc/loadavg; }
load_start="$(load)"

echo "bake_convergence: $name, reference, $ref_spp spp (sobol-owen, seed 99), texel $texel, $bounces bounces; load $(load)"
"$exe" bake "$scene" --sampler sobol-owen --spp "$ref_spp" --bounces "$bounces" --texel "$texel" --seed 99 \
  --out "$work/reference" --json > "$work/reference.log"
echo "scene,sampler,spp,rmse,seconds,rays_per_s" > "$out/convergence$tag.csv.tmp"
for sampler in mixforge-cmj kensler-cmj sobol-owen pcg independent; do
  for spp in 16 64 256 1024; do
    "$exe" bake "$scene" --sampler "$sampler" --spp "$spp" --bounces "$bounces" --texel "$texel" --seed 1 \
      --reference "$work/reference/lightmap.exr" --out "$work/$sampler-$spp" --json > "$work/run.log"
    tail -1 "$work/run.log" | python3 -c '
import json, sys
r = json.loads(sys.stdin.read())
secs = sum(p.get("seconds", 0) for p in r["passes"])
print("%s,%s,%d,%.6g,%.3f,%.4g" % (r["scene"]["name"], r["sampler"], r["spp"], r["rmse"], secs, r["rays_per_s"]))
' >> "$out/convergence$tag.csv.tmp"
    tail -1 "$out/convergence$tag.csv.tmp"
  done
done
mv "$out/convergence$tag.csv.tmp" "$out/convergence$tag.csv"

python3 - "$out/convergence$tag.csv" "$ref_spp" "$texel" "$bounces" "$(load)" "$name" "$load_start" "$(git -C "$here/.." rev-parse --short HEAD)" > "$out/convergence${tag}_summary.txt" <<'PY'
import csv, math, sys
rows = list(csv.DictReader(open(sys.argv[1])))
by = {}
for r in rows:
    by.setdefault(r["sampler"], {})[int(r["spp"])] = float(r["rmse"])
print(f"{sys.argv[6]}, reference {sys.argv[2]} spp (sobol-owen, another seed), texel {sys.argv[3]}, "
      f"{sys.argv[4]} bounces; commit {sys.argv[8]}; load average at the start {sys.argv[7]}, at the end {sys.argv[5]}")
print("sampler        rmse@16     rmse@64     rmse@256    rmse@1024   slope (log rmse / log spp)")
for s, d in by.items():
    xs = [math.log(k) for k in sorted(d)]; ys = [math.log(d[k]) for k in sorted(d)]
    n = len(xs); mx = sum(xs) / n; my = sum(ys) / n
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    print(f"{s:14s} " + " ".join(f"{d[k]:<11.4g}" for k in sorted(d)) + f" {slope:.3f}")
m = by.get("mixforge-cmj", {}).get(256); p = by.get("pcg", {}).get(256); o = by.get("sobol-owen", {}).get(256)
if m and p: print(f"at 256 spp: mixforge-cmj / pcg = {m / p:.3f} (goal <= 0.5)")
if m and o: print(f"at 256 spp: mixforge-cmj / sobol-owen = {m / o:.3f} (goal <= 1.10)")
PY
cat "$out/convergence${tag}_summary.txt"

if command -v gnuplot > /dev/null; then
  gnuplot <<GP
set terminal pngcairo size 900,600 noenhanced
set output "$out/convergence$tag.png"
set datafile separator ","
set logscale xy
set xlabel "samples per texel"
set ylabel "RMSE against the reference"
set title "$name lightmap: RMSE by sampler"
set key top right
plot for [s in "mixforge-cmj kensler-cmj sobol-owen pcg independent"] "$out/convergence$tag.csv" \
  using (strcol(2) eq s ? \$3 : 1/0):4 with linespoints title s
GP
  echo "bake_convergence: wrote $out/convergence$tag.png"
fi
