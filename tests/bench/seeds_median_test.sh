#!/usr/bin/env bash
# bench/seeds_median.sh on a seeds.csv written in parts: seeds out of order, another label
# mixed in, a seed run twice (the last run counts), a mark with no exact best ("-" sorts
# last), programs with commas. Compared with the table worked out by hand.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
cp "$here/seeds_median.csv" "$dir/seeds.csv"
bash "$here/../../bench/seeds_median.sh" "$dir" default >/dev/null
diff -u "$here/seeds_median.expected.md" "$dir/seeds_default.md"
if bash "$here/../../bench/seeds_median.sh" "$dir" nosuchlabel 2>"$dir/err"; then
  echo "a label with no rows should fail"; exit 1
fi
grep -q "no rows labelled nosuchlabel" "$dir/err"
echo "seeds_median: ok"
