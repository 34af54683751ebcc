#include "app/program_input.hpp"

#include <nlohmann/json.hpp>

#include "app/request_error.hpp"
#include "mixer/json_form.hpp"

namespace mixforge::app {

namespace {
void check_width(const mixer::Program& p, const ProgramRules& rules) {
  if (rules.width && *rules.width != p.width())
    throw RequestError(rules.width_field, "width-mismatch",
                       "width " + std::to_string(*rules.width) + " differs from the program's width " +
                           std::to_string(p.width()));
}
}  // namespace

mixer::ParsedText program_from_text(const std::string& text, const ProgramRules& rules) {
  try {
    return mixer::parse_text(text, mixer::ParseOptions{rules.width, rules.max_steps});
  } catch (const mixer::ParseError& e) {
    // A mask that disagrees with the given width is a ParseError at the mask: it keeps its
    // position (the text is where the fix goes).
    throw RequestError(rules.field, "invalid-program", "program text " + std::string(e.what()),
                       TextPosition{e.line(), e.column()});
  }
}

mixer::Program program_from_json_form(const nlohmann::json& value, const ProgramRules& rules) {
  nlohmann::json j = value;
  // A scored function (eval --json, an API answer): its width and steps are the program.
  if (j.is_object() && j.contains("program") && j["program"].is_object()) j = j["program"];
  if (j.is_object() && j.contains("width") && j.contains("steps") && j.size() > 2)
    j = nlohmann::json{{"width", j["width"]}, {"steps", j["steps"]}};
  mixer::Program p;
  try {
    p = mixer::program_from_json(j, mixer::ValidationLimits{rules.max_steps});
  } catch (const mixer::ProgramError& e) {
    // "steps[2].constant: message" -> the field program.steps[2].constant
    const std::string what = e.what();
    const auto colon = what.find(": ");
    std::string path = colon != std::string::npos && what.find(' ') > colon ? what.substr(0, colon) : std::string();
    if (path == "(root)") path.clear();
    throw RequestError(field_below(rules.field, path),
                       "invalid-program", "program " + what);
  } catch (const nlohmann::json::exception& e) {
    throw RequestError(rules.field, "invalid-program", std::string("program: ") + e.what());
  }
  check_width(p, rules);
  return p;
}

mixer::Program program_from_value(const nlohmann::json& value, const ProgramRules& rules) {
  if (value.is_string()) return program_from_text(value.get<std::string>(), rules).program;
  if (value.is_object()) return program_from_json_form(value, rules);
  throw RequestError(rules.field, "invalid-program", "a program is program text (a string) or a program object");
}

mixer::ParsedText program_from_document(const std::string& text, const ProgramRules& rules) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos || text[first] != '{' || text.find('"') == std::string::npos)
    return program_from_text(text, rules);
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw RequestError(rules.field, "invalid-program",
                       std::string("the program looks like JSON but is not valid JSON: ") + e.what());
  }
  mixer::ParsedText parsed;
  parsed.program = program_from_json_form(j, rules);
  parsed.mask_width = parsed.program.width();
  parsed.variable = "x";
  return parsed;
}

}  // namespace mixforge::app
