#!/usr/bin/env bash
# The 64-bit comparison at more inputs than the seeds benchmark's 2^24 (issue 11): the two
# 5-step bests of bench/results/evolve/width64 and the splitmix64 finaliser, murmur3's
# fmix64 and Moremur, each scored by `mixforge eval --width 64 --samples N` on the same
# sample stream (one seed: common random numbers), two at a time. Writes
# bench/results/evolve/width64/compare64_<log2 N>.md: chi2 (noise-corrected, ideal 0) +-
# its standard error, and which differences exceed three standard errors. ONLY="name,name"
# scores only those (e.g. ONLY="seed 2 best,splitmix64" at 2^34), written to
# compare64_<log2 N>_only.md.
#
#   [ONLY=...] bench/compare64.sh [BUILD_DIR [LOG2_SAMPLES]]   (default build/release, 30)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="${1:-$here/../build/release}"
log2="${2:-30}"
out="$here/results/evolve/width64"
mkdir -p "$out"
cmake --build "$build" --target mixforge
seed=6692628815212589038  # a fixed seed no run or earlier comparison used
functions=(
  "seed 1 best|x ^= x >> 36; x *= 0x9b7007a13fe95529; x ^= x >> 29; x *= 0xb805a8f027bc96f5; x ^= x >> 30;"
  "seed 2 best|x ^= x >> 29; x *= 0x839d5fd6a1a8d4a5; x ^= x >> 31; x *= 0x8d445e5f29a84b47; x ^= x >> 24;"
  "splitmix64|x ^= x >> 30; x *= 0xbf58476d1ce4e5b9; x ^= x >> 27; x *= 0x94d049bb133111eb; x ^= x >> 31;"
  "fmix64|x ^= x >> 33; x *= 0xff51afd7ed558ccd; x ^= x >> 33; x *= 0xc4ceb9fe1a85ec53; x ^= x >> 33;"
  "moremur|x ^= x >> 27; x *= 0x3c79ac492ba7b653; x ^= x >> 33; x *= 0x1c69b3f74ac4ae35; x ^= x >> 27;"
)
if [ -n "${ONLY:-}" ]; then
  kept=()
  IFS=, read -r -a wanted <<< "$ONLY"
  for f in "${functions[@]}"; do
    for w in "${wanted[@]}"; do [ "${f%%|*}" != "$w" ] || kept+=("$f"); done
  done
  [ ${#kept[@]} -ge 2 ] || { echo "compare64: ONLY names fewer than two known functions" >&2; exit 2; }
  functions=("${kept[@]}")
fi
names=$(printf '%s\n' "${functions[@]}" | cut -d'|' -f1 | paste -sd'|')
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
start=$(date +%s)
i=0
for f in "${functions[@]}"; do
  "$build/cli/mixforge" eval --width 64 --samples $((1 << log2)) --seed "$seed" --json "${f#*|}" > "$tmp/$i.json" &
  i=$((i + 1))
  if (( i % 2 == 0 )); then wait; fi  # two at a time: one per core
done
wait
report="$out/compare64_$log2${ONLY:+_only}.md"
{
  echo "# 64-bit 5-step functions at 2^$log2 inputs, one sample stream (seed $seed)"
  echo "$(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) cores, commit $(git -C "$here/.." rev-parse --short HEAD), $(( $(date +%s) - start )) s, load before $load_before, after $(cut -d' ' -f1-3 /proc/loadavg)"
  echo
  python3 - "$tmp" "$names" <<'EOF'
import json, sys
names = sys.argv[2].split("|")
rows = [json.load(open(f"{sys.argv[1]}/{i}.json")) for i in range(len(names))]
print("| function | program | chi2 (corrected) +- standard error | bias | seconds |")
print("|---|---|---|---|---|")
for n, r in zip(names, rows):
    print(f"| {n} | `{r['text'].replace(chr(10), ' ')}` | {r['chi2_corrected']:.4e} +- {r['chi2_stderr']:.1e} | {r['bias']:.5f} | {r['seconds']:.1f} |")
print()
ours = [i for i, n in enumerate(names) if n.endswith("best")]
# The standard error of a difference on common inputs is at most the sum of the two.
for a in ours:
    for b in range(len(rows)):
        if b in ours: continue
        d = rows[a]["chi2_corrected"] - rows[b]["chi2_corrected"]
        se = rows[a]["chi2_stderr"] + rows[b]["chi2_stderr"]
        verdict = "lower" if d < -3 * se else "higher" if d > 3 * se else "not distinguishable"
        print(f"- {names[a]} vs {names[b]}: difference {d:.2e} (3 SE bound {3 * se:.1e}): {verdict}")
EOF
} > "$report"
cat "$report"
