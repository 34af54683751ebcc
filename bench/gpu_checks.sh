#!/usr/bin/env bash
# The GPU checks, run on a GPU machine from a copy of this repository with a bundle made by
# bench/gpu_bundle.sh (no toolchain needed there: an NVIDIA driver is enough).
#   bench/gpu_checks.sh BUNDLE.tar.xz OUT [STEPS]
# STEPS, comma-separated (default tests,bench):
#   tests   ctest -L gpu (GpuDevice.*, NativeCudaGpu.* needs nvcc there) and an exact eval
#   bench   bench_gpu: exact lowbias32 with every kernel option, batches, sampled
#   bake    the Vulkan baker on the GPU's driver (bench/bake_backends.sh) and --backend auto
#   search  bench/gpu_search.sh for SEARCH_MINUTES (default 10) with SEARCH_SEEDS (default 3)
# Everything goes to OUT/checks.log with the time of each step; result files to OUT/.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=bench/ldconfig_path.sh
source bench/ldconfig_path.sh
bundle=${1:?usage: bench/gpu_checks.sh BUNDLE.tar.xz OUT [STEPS]}
out=${2:?usage: bench/gpu_checks.sh BUNDLE.tar.xz OUT [STEPS]}
steps=",${3:-tests,bench},"
mkdir -p "$out"
log="$out/checks.log"
say() { echo "== $(date -u +%H:%M:%S) $*" | tee -a "$log"; }
run() { "$@" 2>&1 | tee -a "$log"; return "${PIPESTATUS[0]}"; }

# build/release becomes the bundle's build. One this script did not unpack (no marker) is a
# build of this tree, on a development machine: refused, never deleted.
if [ -e build/release ] && [ ! -e build/release/.from-gpu-bundle ]; then
  echo "gpu_checks: $PWD/build/release is a build of this tree, and the checks replace build/release with the bundle's build: refused (run them from another copy of the repository, or move that build)" >&2
  exit 2
fi
: > "$log"
say "start: $(nproc) cores; steps ${steps//,/ }"
run nvidia-smi -L || say "nvidia-smi failed: no NVIDIA driver?"
unpacked=$(mktemp -d)
xz -dc "$bundle" | tar -C "$unpacked" -xf - || { say "cannot unpack $bundle"; exit 2; }
pack="$unpacked/mixforge-gpu"
say "bundle of commit $(cat "$pack/COMMIT"); this tree: $(git rev-parse --short HEAD 2>/dev/null || echo 'not a git checkout')"
# The build goes where this tree expects it; the paths compiled into the tests and ctest
# files (the bundling machine's) are made to point here too.
mkdir -p build
rm -rf build/release
cp -r "$pack/build" build/release
: > build/release/.from-gpu-bundle
link_here() {  # link_here THERE HERE: THERE (a path of the bundling machine) leads HERE
  if [ "$1" != "$2" ] && [ ! -e "$1" ]; then mkdir -p "$(dirname "$1")" && ln -s "$2" "$1"; fi
}
# The source folder first: the build folder usually lies inside it.
link_here "$(cat "$pack/SOURCE_DIR")" "$PWD"
link_here "$(cat "$pack/BUILD_DIR")" "$PWD/build/release"
export LD_LIBRARY_PATH="$pack/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
if [ -z "$(ldconfig_path libGLdispatch.so.0)" ]; then
  export LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$pack/lib/gl"
  say "no libglvnd on this machine: using the bundle's"
fi
if ! build/release/cli/mixforge --version > /dev/null 2>&1; then
  export LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$pack/fallback"
  say "this machine's libstdc++ is older than the build's: using the bundle's"
fi
run build/release/cli/mixforge --version || { say "mixforge does not start here"; exit 2; }
status=0

if [[ $steps == *,tests,* ]]; then
  if command -v ctest > /dev/null; then
    say "tests: ctest -L gpu"
    for d in tests/avalanche tests/shader; do
      run ctest --test-dir "build/release/$d" -L gpu --output-on-failure || status=1
    done
  else
    say "tests: no ctest here, the gpu tests' binaries directly"
    run build/release/tests/avalanche/avalanche_tests --gtest_filter='GpuDevice.*' || status=1
    run build/release/tests/shader/shader_native_tests --gtest_filter='NativeCudaGpu.*' || status=1
  fi
  run build/release/cli/mixforge eval --exact --device gpu \
    'x ^= x >> 16; x *= 0x7feb352d; x ^= x >> 15; x *= 0x846ca68b; x ^= x >> 16;' || status=1
fi
if [[ $steps == *,bench,* ]]; then
  say "bench: bench_gpu"
  run build/release/bench/bench_gpu --out "$out/gpu" || status=1
fi
if [[ $steps == *,bake,* ]]; then
  for icd in /usr/share/vulkan/icd.d/nvidia_icd.json /etc/vulkan/icd.d/nvidia_icd.json \
             /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json; do
    if [ -e "$icd" ]; then export VK_DRIVER_FILES="$icd"; break; fi
  done
  say "bake: Vulkan on ${VK_DRIVER_FILES:-the default driver of the Vulkan loader}"
  run bench/bake_backends.sh build/release/cli/mixforge 256 || status=1
  run build/release/cli/mixforge bake --backend auto --spp 64 --bounces 1 --out "$out/bake_auto" --json || status=1
  mkdir -p "$out/bake" && cp bench/results/bake/backends.csv bench/results/bake/report_embree.json bench/results/bake/report_vulkan.json "$out/bake/" 2>/dev/null
fi
if [[ $steps == *,search,* ]]; then
  say "search: ${SEARCH_MINUTES:-10} minutes, ${SEARCH_SEEDS:-3} seeds per device"
  run env OUT="$out/search" bench/gpu_search.sh build/release "${SEARCH_MINUTES:-10}" "${SEARCH_SEEDS:-3}" || status=1
fi
say "done, status $status"
rm -rf "$unpacked"
exit "$status"
