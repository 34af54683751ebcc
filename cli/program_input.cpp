#include "cli/program_input.hpp"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "mixer/json_form.hpp"

namespace mixforge::cli {

std::string read_program_argument(const std::string& argument) {
  if (argument == "-") {
    std::ostringstream ss;
    ss << std::cin.rdbuf();
    return ss.str();
  }
  std::error_code ec;
  // A program text never looks like an existing regular file; a path does.
  if (argument.find(';') == std::string::npos && argument.find('\n') == std::string::npos &&
      std::filesystem::is_regular_file(argument, ec)) {
    std::ifstream in(argument, std::ios::binary);
    if (!in) throw UsageError("cannot read " + argument);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  return argument;
}

namespace {
// The JSON form (schema/program.schema.json): what eval --json and runs export --json print.
ParsedText parse_json_form(const std::string& text, std::optional<int> width, int max_steps) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw UsageError(std::string("the program looks like JSON but is not valid JSON: ") + e.what());
  }
  // eval --json prints a scored function: its width and steps are the program (an API
  // answer may hold it under "program").
  if (j.is_object() && j.contains("program") && j["program"].is_object()) j = j["program"];
  if (j.is_object() && j.contains("width") && j.contains("steps") && j.size() > 2)
    j = nlohmann::json{{"width", j["width"]}, {"steps", j["steps"]}};
  ValidationLimits limits;
  limits.max_steps = max_steps;
  ParsedText parsed;
  try {
    parsed.program = program_from_json(j, limits);
  } catch (const ProgramError& e) {
    throw UsageError(e.what());
  }
  if (width && *width != parsed.program.width())
    throw UsageError("--width " + std::to_string(*width) + " but the JSON program's width is " +
                     std::to_string(parsed.program.width()));
  parsed.mask_width = parsed.program.width();
  parsed.variable = "x";
  return parsed;
}
}  // namespace

ParsedText parse_program_argument(const std::string& argument, std::optional<int> width,
                                  int max_steps) {
  const std::string text = read_program_argument(argument);
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && text[first] == '{' && text.find('"') != std::string::npos)
    return parse_json_form(text, width, max_steps);
  try {
    return parse_text(text, ParseOptions{width, max_steps});
  } catch (const ParseError& e) {
    // Every statement has an '=': a word without one was meant as a file.
    if (text == argument && argument != "-") {
      std::error_code ec;
      if (argument.find('=') == std::string::npos && argument.find('\n') == std::string::npos &&
          !std::filesystem::exists(argument, ec))
        throw UsageError(argument + ": no such file (and not a program: " + e.what() + ")");
    }
    throw UsageError(e.what());
  }
}

}  // namespace mixforge::cli
