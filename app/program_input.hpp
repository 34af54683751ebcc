#pragma once
// A program given in a request: C-like text or the JSON form (schema/program.schema.json),
// with an optional width the request gives beside it. One set of rules for every entry
// point: the text's mask and the given width must agree, the JSON form's width and the
// given width must agree, and a scored function (what `eval --json` prints, or an API
// answer holding it under "program") is read as its program. Errors are RequestErrors
// naming `field` (or a path below it: "program.steps[2].constant") and, for text, the line
// and column; a width that disagrees names `width_field`.
#include <optional>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "mixer/text_form.hpp"

namespace mixforge::app {

struct ProgramRules {
  std::optional<int> width;               // the width the request gives, if any
  int max_steps = 64;
  std::string field = "program";          // where the program sits in the request
  std::string width_field = "width";      // where the width sits
};

// Text form; keeps what the text said of itself (its mask's width, its variable name).
mixer::ParsedText program_from_text(const std::string& text, const ProgramRules& rules = {});
// JSON form (an object).
mixer::Program program_from_json_form(const nlohmann::json& value, const ProgramRules& rules = {});
// Either: a JSON string holds text, an object the JSON form; anything else is refused.
mixer::Program program_from_value(const nlohmann::json& value, const ProgramRules& rules = {});
// Text that may be the JSON form (it starts with '{' and has a '"'), as a file or stdin
// holds it.
mixer::ParsedText program_from_document(const std::string& text, const ProgramRules& rules = {});

}  // namespace mixforge::app
