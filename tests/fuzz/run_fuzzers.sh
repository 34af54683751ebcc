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

# Compile a source into WORK/obj once; again only when it (or anything in its folder's
# headers) is newer than the object.
compile() {
  src=$1
  obj="$WORK/obj/$(echo "$src" | sed 's|/|_|g').o"
  if [ ! -f "$obj" ] || [ -n "$(find "$src" "$(dirname "$src")" "$SRC/server" "$SRC/mixer" -maxdepth 1 -name '*.hpp' -newer "$obj" 2>/dev/null | head -1)" ] || [ "$src" -nt "$obj" ]; then
    $CXX $FLAGS -c "$src" -o "$obj"
  fi
  echo "$obj"
}

MIXER=""
for f in step program interpreter inverse text_form json_form; do MIXER="$MIXER $(compile "$SRC/mixer/$f.cpp")"; done
SERVER=""
for f in http_types problem query schema_validator program_input request_parsing; do SERVER="$SERVER $(compile "$SRC/server/$f.cpp")"; done
SERVER="$SERVER $(compile "$BIN/server/embedded_schemas.cpp") $(compile "$BIN/server/embedded_openapi.cpp")"
EVOLVER="$(compile "$SRC/evolver/run_config.cpp") $(compile "$BIN/evolver/run_config_schema.cpp")"

P=$(compile "$SRC/tests/fuzz/fuzz_program_parser.cpp")
$CXX $FLAGS -fsanitize=fuzzer "$P" $MIXER -lxxhash -o "$WORK/fuzz_program_parser"
R=$(compile "$SRC/tests/fuzz/fuzz_request.cpp")
$CXX $FLAGS -fsanitize=fuzzer "$R" $SERVER $EVOLVER $MIXER -lxxhash -o "$WORK/fuzz_request"

status=0
for t in program_parser request; do
  mkdir -p "$WORK/corpus-$t"
  echo "== fuzz_$t: ${SECONDS_EACH}s"
  (cd "$WORK" && ./fuzz_$t -max_total_time="$SECONDS_EACH" -max_len=4096 -rss_limit_mb=2048 \
      -print_final_stats=1 "$WORK/corpus-$t" "$SRC/tests/fuzz/corpus/$t") || status=1
done
exit $status
