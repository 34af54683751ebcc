// Default sanitizer options of the test binaries, in effect also where no environment sets
// them (CMake's test discovery runs each binary at build time). ASAN_OPTIONS /
// TSAN_OPTIONS / UBSAN_OPTIONS from the environment (the asan and tsan test presets set
// them, and spawned daemons inherit them) take precedence. Linked only into sanitizer builds.
extern "C" {

// Leaks are checked (see docs/testing-and-ci.md, "Sanitizers"). abort_on_error=0: a finding exits with
// status 1 after its report, which CTest shows.
const char* __asan_default_options() { return "detect_leaks=1:strict_string_checks=1:check_initialization_order=1"; }

const char* __ubsan_default_options() { return "print_stacktrace=1:halt_on_error=1"; }

const char* __tsan_default_options() {
  return "halt_on_error=1:second_deadlock_stack=1:suppressions=" MIXFORGE_SOURCE_DIR "/tests/sanitizers/tsan.supp";
}

}  // extern "C"
