#!/usr/bin/env bash
# lint.sh redocly|spectral DOCUMENT: lints the bundled OpenAPI document with the linter
# installed in tests/contract/node_modules (offline). Fails on any error and on any
# warning: a rule is relaxed only in redocly.yaml / .spectral.yaml, with a written reason.
set -uo pipefail
cd "$(dirname "$0")"
tool=$1 doc=$2
bin=node_modules/.bin/$tool
if [ ! -x "$bin" ]; then
  echo "lint.sh: $bin is missing: run .ci/install-deps (npm ci in tests/contract)" >&2
  exit 1
fi
[ -f "$doc" ] || { echo "lint.sh: $doc is missing: build the mixforge_openapi target" >&2; exit 1; }
export REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true NO_UPDATE_NOTIFIER=1 SCARF_ANALYTICS=false
case $tool in
  redocly)
    out=$("$bin" lint --config redocly.yaml --format stylish "$doc" 2>&1); rc=$?
    echo "$out"
    [ $rc -eq 0 ] || exit 1
    # redocly exits 0 with warnings; they fail here too.
    if grep -Eq '[0-9]+ warnings?' <<<"$out" && ! grep -Eq '(^|[^0-9])0 warnings' <<<"$out"; then
      echo "lint.sh: redocly reported warnings" >&2
      exit 1
    fi ;;
  spectral)
    "$bin" lint --ruleset .spectral.yaml --fail-severity warn --format stylish "$doc" ;;
  *) echo "lint.sh: unknown tool $tool" >&2; exit 2 ;;
esac
