#!/usr/bin/env bash
# bench/gpu_checks.sh makes build/release of the bundle it unpacks. Run in a tree that has
# its own build there (a development machine), it must refuse and leave that build alone
# (it deleted it once), while a build/release it unpacked itself before is replaced.
# The checks run on a copy of the two scripts in a scratch tree, with a minimal bundle.
# usage: gpu_checks_keeps_build_test.sh SOURCE_DIR
set -euo pipefail
src=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tree="$work/tree"
mkdir -p "$tree/bench" "$tree/build/release/cli" "$work/pack/mixforge-gpu/build/cli"
cp "$src/bench/gpu_checks.sh" "$src/bench/ldconfig_path.sh" "$tree/bench/"
echo "a build of this tree" > "$tree/build/release/cli/keep"
pack="$work/pack/mixforge-gpu"
echo test > "$pack/COMMIT"
echo "$work/elsewhere/src" > "$pack/SOURCE_DIR"
echo "$work/elsewhere/src/build/release" > "$pack/BUILD_DIR"
printf '#!/bin/sh\necho mixforge 0\n' > "$pack/build/cli/mixforge"
chmod +x "$pack/build/cli/mixforge"
tar -C "$work/pack" -cf - mixforge-gpu | xz -0 > "$work/bundle.tar.xz"

rc=0
bash "$tree/bench/gpu_checks.sh" "$work/bundle.tar.xz" "$work/out1" none > "$work/log1" 2>&1 || rc=$?
[ -f "$tree/build/release/cli/keep" ] || { cat "$work/log1"; echo "FAIL: gpu_checks.sh deleted the tree's own build/release"; exit 1; }
[ "$rc" -eq 2 ] || { cat "$work/log1"; echo "FAIL: exit $rc, not 2 (refused)"; exit 1; }
grep -q "build/release" "$work/log1" || { cat "$work/log1"; echo "FAIL: the refusal does not name build/release"; exit 1; }
echo "ok: refused (exit 2), the tree's build kept: $(tail -n 1 "$work/log1")"

# Its own earlier build/release (the marker it leaves) is replaced.
rm -rf "$tree/build/release"
bash "$tree/bench/gpu_checks.sh" "$work/bundle.tar.xz" "$work/out2" none > "$work/log2" 2>&1 || true
[ -x "$tree/build/release/cli/mixforge" ] || { cat "$work/log2"; echo "FAIL: the bundle's build was not unpacked"; exit 1; }
echo stale > "$tree/build/release/cli/stale"
bash "$tree/bench/gpu_checks.sh" "$work/bundle.tar.xz" "$work/out3" none > "$work/log3" 2>&1 || true
if [ -e "$tree/build/release/cli/stale" ] || [ ! -x "$tree/build/release/cli/mixforge" ]; then
  cat "$work/log3"; echo "FAIL: a build/release unpacked by gpu_checks.sh before was not replaced"; exit 1
fi
echo "ok: a build/release it unpacked before is replaced"
