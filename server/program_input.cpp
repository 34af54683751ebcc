#include "server/program_input.hpp"

#include <nlohmann/json.hpp>

#include "mixer/json_form.hpp"
#include "mixer/text_form.hpp"
#include "server/problem.hpp"

namespace mixforge::server {

Program program_from_request(const nlohmann::json& value, const std::string& pointer,
                             std::optional<int> width, const std::string& width_pointer) {
  if (value.is_string()) {
    ParseOptions opts;
    opts.width = width;
    try {
      return parse_program(value.get<std::string>(), opts);
    } catch (const ParseError& e) {
      throw HttpError(422, "invalid-program", "program text " + std::string(e.what()))
          .with_field(pointer)
          .with_position(e.line(), e.column());
    }
  }
  if (value.is_object()) {
    Program p;
    try {
      p = program_from_json(value);
    } catch (const ProgramError& e) {
      // "steps[2].constant: message" -> field /program/steps/2/constant
      const std::string what = e.what();
      const auto colon = what.find(": ");
      const std::string path = colon == std::string::npos ? std::string() : what.substr(0, colon);
      throw HttpError(422, "invalid-program", "program " + what)
          .with_field(path_to_pointer(path, pointer));
    }
    if (width && *width != p.width())
      throw HttpError(422, "width-mismatch",
                      "width " + std::to_string(*width) + " differs from the program's width " +
                          std::to_string(p.width()))
          .with_field(width_pointer);
    return p;
  }
  throw HttpError(400, "schema-violation", "program must be program text (a string) or a program object")
      .with_field(pointer);
}

}  // namespace mixforge::server
