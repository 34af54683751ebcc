#!/usr/bin/env bash
# `bench_evolve --table` on a seeds.csv written in parts: seeds out of order, another label
# mixed in, a seed run twice (the last run counts), a mark with no exact best ("-" sorts
# last), programs with commas. Compared with the table worked out by hand. A label with no
# rows and a malformed line must fail with a message naming them.
#   tests/bench/seeds_table_test.sh BENCH_EVOLVE
set -euo pipefail
bench="${1:?usage: seeds_table_test.sh BENCH_EVOLVE}"
here="$(cd "$(dirname "$0")" && pwd)"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
cp "$here/seeds_table.csv" "$dir/seeds.csv"
"$bench" --table "$dir" >/dev/null
diff -u "$here/seeds_table.expected.md" "$dir/seeds_default.md"
"$bench" --table "$dir" --label other >/dev/null
grep -q '^| \*\*median of 1\*\* | \*\*1.0000e-07\*\* | \*\*1.0000e-07\*\* | | |$' "$dir/seeds_other.md"
if "$bench" --table "$dir" --label nosuchlabel 2>"$dir/err"; then
  echo "a label with no rows should fail"; exit 1
fi
grep -q "no rows labelled nosuchlabel" "$dir/err"
echo "default,x,1,-,1,1,1," >> "$dir/seeds.csv"
if "$bench" --table "$dir" 2>"$dir/err"; then
  echo "a seed that is not a number should fail"; exit 1
fi
grep -q "seeds.csv:12: seed, minutes, best and tournaments/s must be numbers" "$dir/err"
echo "seeds_table: ok"
