#!/usr/bin/env bash
# `bench_evolve --seeds` appends to seeds.md a row that follows the columns of the table
# already there: a run with fewer marks than the header reads "not run" in the others (it
# once wrote its cells left-aligned under the wrong marks), and a run with a mark the header
# lacks starts a table of its own. Runs of a few seconds: the cells' values do not matter.
#   tests/bench/seeds_md_test.sh BENCH_EVOLVE
set -euo pipefail
bench="${1:?usage: seeds_md_test.sh BENCH_EVOLVE}"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
run() { "$bench" --seeds 1 --first-seed 71 --out "$dir" --config '{"threads":1}' "$@" >/dev/null; }
run --label first --minutes 0.01,0.02
run --label second --minutes 0.02
run --label third --minutes 0.03
md="$dir/seeds.md"
cat "$md"
fail() { echo "seeds_md: $*"; exit 1; }
[[ $(grep -c '^| label (config) | seeds |' "$md") == 2 ]] || fail "want two tables (third has a new mark)"
grep -q '^| label (config) | seeds | 0.01 min | 0.02 min |$' "$md" || fail "first header"
grep -q '^| second `{"threads":1}` | seed 71 | not run | [^|]* |$' "$md" || fail "second's row: 0.01 min should read not run"
grep -q '^| label (config) | seeds | 0.03 min |$' "$md" || fail "third's own header"
grep -q '^| third `{"threads":1}` | seed 71 | [^|]* |$' "$md" || fail "third's row"
# Every row has as many cells as the header above it.
awk -F'|' '/^\| label/ { n = NF } /^\|/ && NF != n { print "row with " NF " fields under a header of " n ": " $0; bad = 1 } END { exit bad }' "$md"
echo "seeds_md: ok"
