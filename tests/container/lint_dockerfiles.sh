#!/usr/bin/env bash
# Lints docker/Dockerfile* with dockerfile-utils (the Dockerfile checks of the Docker
# language server: unknown instructions and flags, missing or malformed arguments,
# deprecated instructions, ...; hadolint is not packaged for Debian, this is on npm and
# installed by .ci/install-deps from tests/container/lint/package-lock.json). Every
# diagnostic, warnings included, fails. Exit 77 (CTest: skipped) without node or the package.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
linter="$here/lint/node_modules/dockerfile-utils/bin/dockerfile-utils"
if ! command -v node >/dev/null; then
  echo "lint_dockerfiles: skipped: node not found"
  exit 77
fi
if [ ! -f "$linter" ]; then
  echo "lint_dockerfiles: skipped: $here/lint/node_modules missing (run .ci/install-deps)"
  exit 77
fi
status=0
shopt -s nullglob
files=("$root"/docker/Dockerfile*)
if ((${#files[@]} == 0)); then
  echo "lint_dockerfiles: no docker/Dockerfile*" >&2
  exit 1
fi
for f in "${files[@]}"; do
  out=$(node "$linter" lint --json "$f") || true
  if [ "$out" = "[]" ]; then
    echo "lint_dockerfiles: ${f#"$root"/}: clean"
  else
    echo "lint_dockerfiles: ${f#"$root"/}:" >&2
    node "$linter" lint "$f" >&2 || true
    [ -n "$out" ] || echo "(no output from the linter)" >&2
    status=1
  fi
done
exit $status
