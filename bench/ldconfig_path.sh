# shellcheck shell=bash
# Sourced by bench/gpu_bundle.sh and bench/gpu_checks.sh (bash, set -o pipefail).
# ldconfig_path SONAME: the x86-64 path of a shared library in the dynamic linker's cache
# (`ldconfig -p`), or nothing. awk reads the whole listing: it is about 70 KB, more than a
# pipe holds, so a reader that stops at the first match (awk's exit, grep -q) can leave
# ldconfig to die of SIGPIPE, which pipefail makes the pipeline's status (gpu_bundle.sh
# exited 141 at one of its lookups, most runs).
ldconfig_path() {
  ldconfig -p | awk -v l="$1" '$1 == l && /x86-64/ && !found { print $NF; found = 1 }'
}
