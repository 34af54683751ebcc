#!/bin/sh
# -nt is not POSIX, but dash's and busybox's test have it (SC3013). $FLAGS and the object
# lists are word lists, split on purpose (SC2086).
# shellcheck disable=SC3013,SC2086
# Builds the libFuzzer targets with clang (-fsanitize=fuzzer,address,undefined) from the
# sources they need and runs each on a number of inputs (PARSER_RUNS, REQUEST_RUNS) from a fixed seed (FUZZ_SEED, default
# 1), so the smoke test tries the same inputs on every machine and a failure in CI
# reproduces anywhere; MAX_SECONDS only caps a very slow machine. Longer, randomly seeded
# runs: FUZZ_SEED=0 (libFuzzer picks one) and more runs. Exit status non-zero when a
# target does not build or a fuzzer fails; the reason is printed last, with the
# reproducer's bytes in hex (it stays in the work folder).
# usage: run_fuzzers.sh CLANGXX SOURCE_DIR BINARY_DIR PARSER_RUNS REQUEST_RUNS [MAX_SECONDS]
set -eu
CXX=$1 SRC=$2 BIN=$3 PARSER_RUNS=$4 REQUEST_RUNS=$5 MAX_SECONDS=${6:-300}
SEED=${FUZZ_SEED:-1}
WORK="$BIN/fuzz-work"
mkdir -p "$WORK/obj"
FLAGS="-std=c++20 -O1 -gline-tables-only -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -I$SRC -DVALIJSON_USE_EXCEPTIONS=1"

# Compile a group of sources as one translation unit (each #included once: the headers
# they share are parsed once, about 3x faster than one clang run per file) into
# WORK/obj/NAME.o; again only when one of them, a header of mixer/, server/, evolver/ (their
# rooms too: server/http/, server/api/, evolver/search/, a room's room: -maxdepth 3) or
# schema/, or this script (its flags), is newer than the object. Line tables only: enough for
# the sanitizers' stack traces, and full debug info took about a third of the compile time.
compile_group() {
  name=$1; shift
  obj="$WORK/obj/$name.o"
  unit="$WORK/obj/$name.cpp"
  : > "$unit.tmp"
  for f in "$@"; do echo "#include \"$f\"" >> "$unit.tmp"; done
  if ! cmp -s "$unit.tmp" "$unit"; then mv "$unit.tmp" "$unit"; else rm -f "$unit.tmp"; fi
  stale=""
  if [ ! -f "$obj" ] || [ "$unit" -nt "$obj" ]; then stale=1; fi
  for f in "$@" "$0"; do [ "$f" -nt "$obj" ] && stale=1; done
  if [ -z "$stale" ] && [ -n "$(find "$SRC/server" "$SRC/app" "$SRC/mixer" "$SRC/evolver" "$SRC/schema" -maxdepth 3 -name '*.hpp' -newer "$obj" 2>/dev/null | head -1)" ]; then
    stale=1
  fi
  if [ -n "$stale" ] && ! $CXX $FLAGS -c "$unit" -o "$obj"; then
    echo "fuzz_smoke: compiling $name failed ($CXX)" >&2
    exit 1
  fi
  echo "$obj"
}

MIXER_SRC=""
for f in step program interpreter inverse text_form json_form; do MIXER_SRC="$MIXER_SRC $SRC/mixer/$f.cpp"; done
SERVER_SRC=""
for f in http/http_types http/problem http/query api/schema_validator api/request_parsing; do SERVER_SRC="$SERVER_SRC $SRC/server/$f.cpp"; done
for f in request_error program_input evaluate run_creation; do SERVER_SRC="$SERVER_SRC $SRC/app/$f.cpp"; done
SERVER_SRC="$SERVER_SRC $BIN/server/embedded_schemas.cpp $BIN/server/embedded_openapi.cpp"
SERVER_SRC="$SERVER_SRC $SRC/evolver/search/run_config.cpp $BIN/evolver/run_config_schema.cpp $SRC/schema/json_schema.cpp"
MIXER=$(compile_group mixer $MIXER_SRC)
SERVER=$(compile_group server $SERVER_SRC)

P=$(compile_group fuzz_program_parser "$SRC/tests/fuzz/fuzz_program_parser.cpp")
$CXX $FLAGS -fsanitize=fuzzer "$P" $MIXER -lxxhash -o "$WORK/fuzz_program_parser"
R=$(compile_group fuzz_request "$SRC/tests/fuzz/fuzz_request.cpp")
$CXX $FLAGS -fsanitize=fuzzer "$R" $SERVER $MIXER -lxxhash -o "$WORK/fuzz_request"

status=0
failures=""
for t in program_parser request; do
  # A fresh corpus each time: what an earlier run added would change the inputs tried.
  rm -rf "$WORK/corpus-$t" "$WORK/artifacts-$t"
  mkdir -p "$WORK/corpus-$t" "$WORK/artifacts-$t"
  if [ "$t" = program_parser ]; then RUNS=$PARSER_RUNS; else RUNS=$REQUEST_RUNS; fi
  echo "== fuzz_$t: $RUNS runs, seed $SEED"
  code=0
  (cd "$WORK" && ./fuzz_$t -seed="$SEED" -runs="$RUNS" -max_total_time="$MAX_SECONDS" -max_len=4096 \
      -rss_limit_mb=2048 -artifact_prefix="$WORK/artifacts-$t/" -print_final_stats=1 \
      "$WORK/corpus-$t" "$SRC/tests/fuzz/corpus/$t") || code=$?
  if [ "$code" -ne 0 ]; then
    status=1
    failures="$failures fuzz_$t(exit $code)"
    for a in "$WORK/artifacts-$t"/*; do
      [ -f "$a" ] || continue
      echo "fuzz_smoke: reproducer $a:"
      od -An -tx1 -v "$a" | head -64
    done
  fi
done
if [ "$status" -ne 0 ]; then echo "fuzz_smoke FAILED:$failures (seed $SEED)"; else echo "fuzz_smoke passed (seed $SEED)"; fi
exit $status
