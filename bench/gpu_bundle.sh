#!/usr/bin/env bash
# Packs what the GPU checks need to run on a machine that has an NVIDIA driver but not this
# project's toolchain (a rented GPU box, another distribution): the binaries that have GPU
# tests and benchmarks, their ctest files, and the shared libraries they load, glibc's
# excepted. Unpack and run it there with bench/gpu_checks.sh, from a copy of this repository.
#   bench/gpu_bundle.sh [BUILD_DIR] [OUT]   (default build/release, .dev/gpu-bundle.tar.xz)
# - libstdc++ and libgcc_s go to fallback/ (used only where the machine's own are older);
# - ICU's 30 MB data library becomes a stub with the same soname (nothing on the GPU paths
#   converts character sets; it keeps the bundle small enough to carry);
# - libglvnd and its X11 libraries go to lib/gl: NVIDIA's Vulkan driver needs them, and
#   compute-only machines may lack them.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/ldconfig_path.sh
source bench/ldconfig_path.sh
build=${1:-build/release}
out=${2:-.dev/gpu-bundle.tar.xz}
binaries=(cli/mixforge tests/avalanche/avalanche_tests tests/shader/shader_native_tests bench/bench_gpu
          bench/bench_evolve)
for b in "${binaries[@]}"; do
  [ -x "$build/$b" ] || { echo "gpu_bundle: $build/$b is missing: build the release preset first" >&2; exit 2; }
done
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
root="$stage/mixforge-gpu"
mkdir -p "$root/build" "$root/lib/gl" "$root/fallback"
for b in "${binaries[@]}"; do
  mkdir -p "$root/build/$(dirname "$b")"
  strip --strip-unneeded -o "$root/build/$b" "$build/$b"
done
for d in tests/avalanche tests/shader; do
  cp "$build/$d"/CTestTestfile.cmake "$build/$d"/*_tests.cmake "$build/$d"/*_include.cmake "$root/build/$d/"
done
[ -d "$build/share" ] && cp -r "$build/share" "$root/build/"
# ctest files and tests hold this build's absolute paths: the checks recreate them.
(cd "$build" && pwd) > "$root/BUILD_DIR"
pwd > "$root/SOURCE_DIR"
git describe --always --dirty > "$root/COMMIT" 2>/dev/null || echo unknown > "$root/COMMIT"

glibc='^(linux-vdso|ld-linux|libc|libm|libpthread|libdl|librt|libresolv|libutil)\.so'
for b in "${binaries[@]}"; do ldd "$build/$b"; done | awk '$2 == "=>" && $3 ~ /^\// {print $3}' | sort -u |
  while read -r lib; do
    name=$(basename "$lib")
    if [[ $name =~ $glibc ]]; then continue; fi
    case $name in
      libstdc++.so.*|libgcc_s.so.*) cp -L "$lib" "$root/fallback/$name" ;;
      libicudata.so.*)
        version=${name#libicudata.so.}
        version=${version%%.*}
        printf 'const char icudt%s_dat[16] = {0};\n' "$version" > "$stage/icu_stub.c"
        cc -shared -fPIC -Wl,-soname,"libicudata.so.$version" -o "$root/lib/$name" "$stage/icu_stub.c" ;;
      *) cp -L "$lib" "$root/lib/$name" ;;
    esac
  done
for lib in libvulkan.so.1 libGLdispatch.so.0 libGLX.so.0 libEGL.so.1 libOpenGL.so.0 libGL.so.1 libX11.so.6 \
           libX11-xcb.so.1 libXext.so.6 libxcb.so.1 libXau.so.6 libXdmcp.so.6 libbsd.so.0 libmd.so.0; do
  path=$(ldconfig_path "$lib")
  [ -n "$path" ] || continue
  case $lib in libvulkan.so.1) dest="$root/lib" ;; *) dest="$root/lib/gl" ;; esac
  [ -e "$root/lib/$lib" ] || cp -L "$path" "$dest/$lib"
done
mkdir -p "$(dirname "$out")"
tar -C "$stage" -cf - mixforge-gpu | xz -9e -T2 > "$out"
echo "gpu_bundle: $out ($(du -h "$out" | cut -f1)), commit $(cat "$root/COMMIT"), $(find "$root/lib" -type f -name '*.so*' | wc -l) libraries"
