#!/bin/sh
# Builds the libFuzzer targets with clang (-fsanitize=fuzzer,address,undefined) from the
# sources they need and runs each for a few seconds. Exit status non-zero when a target
# does not build or the fuzzer finds a crash (its reproducer is left in the work folder).
# usage: run_fuzzers.sh CLANGXX SOURCE_DIR BINARY_DIR SECONDS
set -eu
CXX=$1 SRC=$2 BIN=$3 SECONDS_EACH=$4
WORK="$BIN/fuzz-work"
mkdir -p "$WORK/obj"
FLAGS="-std=c++20 -O1 -g -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -I$SRC -DVALIJSON_USE_EXCEPTIONS=1"

# Compile a group of sources as one translation unit (each #included once: the headers
# they share are parsed once, about 3x faster than one clang run per file) into
# WORK/obj/NAME.o; again only when one of them, or a header of mixer/, server/ or
# evolver/, is newer than the object.
compile_group() {
  name=$1; shift
  obj="$WORK/obj/$name.o"
  unit="$WORK/obj/$name.cpp"
  : > "$unit.tmp"
  for f in "$@"; do echo "#include \"$f\"" >> "$unit.tmp"; done
  if ! cmp -s "$unit.tmp" "$unit"; then mv "$unit.tmp" "$unit"; else rm -f "$unit.tmp"; fi
  stale=""
  if [ ! -f "$obj" ] || [ "$unit" -nt "$obj" ]; then stale=1; fi
  for f in "$@"; do [ "$f" -nt "$obj" ] && stale=1; done
  if [ -z "$stale" ] && [ -n "$(find "$SRC/server" "$SRC/mixer" "$SRC/evolver" -maxdepth 1 -name '*.hpp' -newer "$obj" 2>/dev/null | head -1)" ]; then
    stale=1
  fi
  [ -n "$stale" ] && $CXX $FLAGS -c "$unit" -o "$obj"
  echo "$obj"
}

MIXER_SRC=""
for f in step program interpreter inverse text_form json_form; do MIXER_SRC="$MIXER_SRC $SRC/mixer/$f.cpp"; done
SERVER_SRC=""
for f in http_types problem query schema_validator program_input request_parsing; do SERVER_SRC="$SERVER_SRC $SRC/server/$f.cpp"; done
SERVER_SRC="$SERVER_SRC $BIN/server/embedded_schemas.cpp $BIN/server/embedded_openapi.cpp"
SERVER_SRC="$SERVER_SRC $SRC/evolver/run_config.cpp $BIN/evolver/run_config_schema.cpp"
# shellcheck disable=SC2086
MIXER=$(compile_group mixer $MIXER_SRC)
# shellcheck disable=SC2086
SERVER=$(compile_group server $SERVER_SRC)

P=$(compile_group fuzz_program_parser "$SRC/tests/fuzz/fuzz_program_parser.cpp")
$CXX $FLAGS -fsanitize=fuzzer "$P" $MIXER -lxxhash -o "$WORK/fuzz_program_parser"
R=$(compile_group fuzz_request "$SRC/tests/fuzz/fuzz_request.cpp")
$CXX $FLAGS -fsanitize=fuzzer "$R" $SERVER $MIXER -lxxhash -o "$WORK/fuzz_request"

status=0
for t in program_parser request; do
  mkdir -p "$WORK/corpus-$t"
  echo "== fuzz_$t: ${SECONDS_EACH}s"
  (cd "$WORK" && ./fuzz_$t -max_total_time="$SECONDS_EACH" -max_len=4096 -rss_limit_mb=2048 \
      -print_final_stats=1 "$WORK/corpus-$t" "$SRC/tests/fuzz/corpus/$t") || status=1
done
exit $status
