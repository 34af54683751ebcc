// libFuzzer target: the program parsers (text form and JSON form). Any input must either
// parse or throw ParseError / ProgramError; a parsed program must survive a round trip
// through both forms unchanged.
#include <cstdint>
#include <cstdlib>
#include <string>

#include <nlohmann/json.hpp>

#include "mixer/json_form.hpp"
#include "mixer/text_form.hpp"

using namespace mixforge;

static void check_round_trip(const mixer::Program& p) {
  if (mixer::parse_program(mixer::format_program(p), {.width = p.width()}) != p) std::abort();
  if (mixer::program_from_json(mixer::to_json(p)) != p) std::abort();
  (void)mixer::format_short(p);
  (void)p.id();
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  // The first byte picks an explicit width (0: none).
  const int width = data[0] % 65;
  const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
  try {
    mixer::ParseOptions o;
    if (width > 0) o.width = width;
    const mixer::ParsedText parsed = mixer::parse_text(text, o);
    check_round_trip(parsed.program);
  } catch (const mixer::ParseError& e) {
    if (e.line() < 1 || e.column() < 1) std::abort();
  }
  const auto j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_discarded()) {
    try {
      check_round_trip(mixer::program_from_json(j));
    } catch (const mixer::ProgramError&) {
    }
  }
  return 0;
}
