#!/usr/bin/env bash
# Whether LLVM IR passes before NVPTX code generation pay (jit::PtxOptions::ir_passes):
# `bench_gpu --ptx --ir-passes P` for no passes, instcombine + early-cse (what the host warp
# simulator runs), and the O1 and O3 pipelines. No GPU needed: ptxas -v stands in for
# the driver's compiler, and what counts is the SASS it makes (instructions, registers,
# spills) and the host's emit time. A GPU's kernel timings are bench_gpu's job.
# Writes bench/results/gpu/ptx_passes/LABEL/ptx_kernels.txt and summary.md (one row per
# kernel, one column pair per pipeline: SASS instructions / registers, and emit ms).
#
#   bench/ptx_passes.sh [BUILD_DIR]     OUT=DIR writes elsewhere
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="${1:-$here/../build/release}"
out="${OUT:-$here/results/gpu/ptx_passes}"
mkdir -p "$out"
cmake --build "$build" --target bench_gpu >/dev/null
labels=(none instcombine-early-cse O1 O3)
pipelines=("" "function(instcombine,early-cse)" "default<O1>" "default<O3>")
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "commit: $(git -C "$here/.." rev-parse --short HEAD)"
  echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) cores"
  echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
} > "$out/machine.txt"
for k in "${!labels[@]}"; do
  args=(--ptx --out "$out/${labels[$k]}")
  [ -n "${pipelines[$k]}" ] && args+=(--ir-passes "${pipelines[$k]}")
  "$build/bench/bench_gpu" "${args[@]}" >/dev/null
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out/machine.txt"
python3 - "$out" "${labels[@]}" <<'PY'
import re, sys
out, labels = sys.argv[1], sys.argv[2:]
rows, order = {}, []
for label in labels:
    program = option = None
    for line in open(f"{out}/{label}/ptx_kernels.txt"):
        if line.startswith(("lowbias32", "random 64-bit")):
            program = line.split(":")[0]
        elif re.match(r"^  \S", line):
            option = line.strip()
        m = re.match(r"^\s+(mixforge_\w+)\s+emit\s+(\d+) ms.*?Used (\d+) registers.*?(\d+) bytes spill stores.*?SASS (-?\d+) instructions", line)
        if m:
            key = (program, option, m.group(1))
            if key not in rows:
                rows[key] = {}
                order.append(key)
            rows[key][label] = (m.group(5), m.group(3), m.group(4), m.group(2))
if not rows:
    sys.exit(f"ptx_passes: no kernel with a SASS count in {out}/*/ptx_kernels.txt; is ptxas "
             "(CUDA toolkit, PATH or /usr/local/cuda/bin) installed?")
with open(f"{out}/summary.md", "w") as f:
    f.write("SASS instructions / registers (spill bytes when any); emit ms (median of 3) on the host\n\n")
    f.write("| program | kernel | " + " | ".join(labels) + " |\n")
    f.write("|---|---|" + "---|" * len(labels) + "\n")
    for key in order:
        cells = []
        for label in labels:
            sass, regs, spill, emit = rows[key].get(label, ("?", "?", "0", "?"))
            cells.append(f"{sass} / {regs}" + (f" (spills {spill} B)" if spill != "0" else "") + f"; {emit} ms")
        f.write(f"| {key[0]} | {key[1]} {key[2].replace('mixforge_', '')} | " + " | ".join(cells) + " |\n")
PY
cat "$out/summary.md"
