#!/usr/bin/env bash
# The quality figures README quotes ("Quality"): `mixforge quality --json` (standard size
# unless SIZE is given) for the reference functions: lowbias32, triple32, murmur3 fmix32,
# the 2-round [16 21f0aaad 15 f35a2d97 15] of hash-prospector issue 19 (named best-2round32
# for history: it is not the best published 2-round function, which is [16 21f0aaad 15
# 735a2d97 15], the same thread's comment of 2022-05-07, not measured here), the SplitMix64
# finaliser and Moremur, plus one round of lowbias32 as a weak control. Writes
# bench/results/quality/<name>.json, one report each, table.md (the README tables, made from
# those files), cli_lowbias32_quick.txt (the human form at the quick size) and machine.txt.
# The machine is shared: the load average is recorded before and after.
#
#   bench/quality.sh [BUILD_DIR [SIZE]]   (default build/release, standard)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="${1:-$here/../build/release}"
size="${2:-standard}"
out="$here/results/quality"
mkdir -p "$out"
cmake --build "$build" --target mixforge
load() { cut -d' ' -f1-3 /proc/loadavg; }
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) cores"
  echo "commit: $(git -C "$here/.." rev-parse --short HEAD)"
  echo "size: $size"
  echo "dieharder: $(command -v dieharder || echo 'not installed')"
  echo "load before: $(load)"
} > "$out/machine.txt"

functions=(
  "lowbias32|32|x ^= x >> 16; x *= 0x7feb352d; x ^= x >> 15; x *= 0x846ca68b; x ^= x >> 16;"
  "triple32|32|x ^= x >> 17; x *= 0xed5ad4bb; x ^= x >> 11; x *= 0xac4c1b51; x ^= x >> 15; x *= 0x31848bab; x ^= x >> 14;"
  "murmur3-fmix32|32|x ^= x >> 16; x *= 0x85ebca6b; x ^= x >> 13; x *= 0xc2b2ae35; x ^= x >> 16;"
  "best-2round32|32|x ^= x >> 16; x *= 0x21f0aaad; x ^= x >> 15; x *= 0xf35a2d97; x ^= x >> 15;"
  "splitmix64|64|x ^= x >> 30; x *= 0xbf58476d1ce4e5b9; x ^= x >> 27; x *= 0x94d049bb133111eb; x ^= x >> 31;"
  "moremur|64|x ^= x >> 27; x *= 0x3c79ac492ba7b653; x ^= x >> 33; x *= 0x1c69b3f74ac4ae35; x ^= x >> 27;"
  "one-round32|32|x ^= x >> 16; x *= 0x7feb352d; x ^= x >> 15;"
)
for f in "${functions[@]}"; do
  IFS='|' read -r name width text <<< "$f"
  echo "# $name (load $(load))"
  "$build/cli/mixforge" quality --json --size "$size" --width "$width" "$text" > "$out/$name.json"
done
# The human form README shows (quick size: a few seconds).
{
  echo "\$ mixforge quality --size quick \"${functions[0]#*|*|}\""
  "$build/cli/mixforge" quality --size quick "${functions[0]#*|*|}"
} > "$out/cli_lowbias32_quick.txt"
echo "load after: $(load)" >> "$out/machine.txt"

python3 - "$out" "${functions[@]}" <<'PY'
import json, sys
out, names = sys.argv[1], [f.split('|')[0] for f in sys.argv[2:]]
reports = {n: json.load(open(f"{out}/{n}.json")) for n in names}
def g(x): return f"{x:.3g}"
lines = []
r0 = reports[names[0]]
lines.append(f"Size `{r0['options']['size']}`, seed {r0['options']['seed']}; "
             f"made by bench/quality.sh from the <name>.json reports beside this file (machine.txt: where and when).\n")
lines.append("| function | width | avalanche chi2 | bias | worst cell \\|A-1/2\\| | BIC chi2 / cells (p) | BIC worst pair: input -> outputs, c | 2-bit flips chi2 / dof (p) | 3-bit flips chi2 / dof (p) | dieharder passed / weak / failed | seconds |")
lines.append("|---|---|---|---|---|---|---|---|---|---|---|")
for n in names:
    r = reports[n]; a = r['avalanche']; b = r['bit_independence']; ho = {h['flipped_bits']: h for h in r['higher_order']}
    c = r['counter_battery']
    av = g(a['chi2']) + (" (exact)" if a['exact'] else f" (2^{a['samples'].bit_length()-1} samples, corrected {g(a['chi2_corrected'])})")
    wp = b.get('worst_pair')
    bic = f"{g(b['chi2'])} / {b['cells']} (p {g(b['p_value'])}, {b['verdict']})"
    pair = f"{wp['input_bit']} -> {wp['output_bits'][0]}, {wp['output_bits'][1]}: {wp['correlation']:+.3f}" if wp else "-"
    hos = [f"{g(ho[k]['chi2'])} / {ho[k]['dof']} (p {g(ho[k]['p_value'])}, {ho[k]['verdict']})" if k in ho else "-" for k in (2, 3)]
    bat = f"{c['passed']} / {c['weak']} / {c['failed']}" if c['status'] == 'ran' else c['status']
    lines.append(f"| {n} | {r['function']['width']} | {av} | {a['bias']:.4g} | {a['worst_cell']['deviation']:.4g} | {bic} | {pair} | {hos[0]} | {hos[1]} | {bat} | {r['seconds']:.0f} |")
lines.append("")
ran = [n for n in names if reports[n]['counter_battery']['status'] == 'ran']
if ran:
    tr = [t['name'] for t in reports[ran[0]]['counter_battery']['transforms']]
    c0 = reports[ran[0]]['counter_battery']
    lines.append(f"dieharder ({c0['tool']}) per counter transform, passed / weak / failed over "
                 f"{len(c0['tests'])} tests ({', '.join(t['name'] + ' -p ' + str(t['psamples']) for t in c0['tests'])}); "
                 "the 64-bit rows rotate by 16, 32, 48:\n")
    lines.append("| function | " + " | ".join(tr) + " | failed tests |")
    lines.append("|---|" + "---|" * (len(tr) + 1))
    for n in ran:
        c = reports[n]['counter_battery']
        cells = [f"{t['passed']} / {t['weak']} / {t['failed']}" for t in c['transforms']]
        failed = sorted({x['test'] for t in c['transforms'] for x in t['results'] if x['verdict'] == 'failed'})
        lines.append(f"| {n} | " + " | ".join(cells) + f" | {', '.join(failed) or '-'} |")
open(f"{out}/table.md", "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
