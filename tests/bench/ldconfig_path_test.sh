#!/usr/bin/env bash
# bench/ldconfig_path.sh under gpu_bundle.sh's shell options: every lookup of a library
# early in `ldconfig -p` and one late in it succeeds, 20 times each (a lookup whose reader
# stopped early failed with 141, SIGPIPE, most times), and a missing one gives nothing.
# usage: ldconfig_path_test.sh SOURCE_DIR
set -euo pipefail
# shellcheck source=bench/ldconfig_path.sh
source "$1/bench/ldconfig_path.sh"
command -v ldconfig > /dev/null || PATH=$PATH:/sbin:/usr/sbin
listing=$(ldconfig -p | awk '/x86-64/ { print $1 }')
first=$(sed -n 1p <<< "$listing")
last=$(sed -n '$p' <<< "$listing")
[ -n "$first" ] || { echo "SKIPPED: ldconfig -p lists no x86-64 library here"; exit 77; }
for name in "$first" "$last" libc.so.6; do
  for _ in $(seq 20); do
    path=$(ldconfig_path "$name") || { echo "FAIL: ldconfig_path $name exited $?"; exit 1; }
    [ -e "$path" ] || { echo "FAIL: ldconfig_path $name gave '$path', not a file"; exit 1; }
  done
  echo "ok: $name -> $path"
done
[ -z "$(ldconfig_path libno-such-library.so.0)" ] || { echo "FAIL: a missing library was found"; exit 1; }
echo "ok: a missing library gives nothing"
