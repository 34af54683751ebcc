#include "cli/program_input.hpp"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "app/program_input.hpp"
#include "app/request_error.hpp"
#include "cli/commands.hpp"

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

mixer::ParsedText parse_program_argument(const std::string& argument, std::optional<int> width, int max_steps) {
  const std::string text = read_program_argument(argument);
  try {
    // The rules are the use case's (app/program_input.hpp), the same as the daemon's.
    return app::program_from_document(text, app::ProgramRules{width, max_steps});
  } catch (const app::RequestError& e) {
    // Every statement has an '=': a word without one was meant as a file.
    if (e.code() == "invalid-program" && e.position() && text == argument && argument != "-") {
      std::error_code ec;
      if (argument.find('=') == std::string::npos && argument.find('\n') == std::string::npos &&
          !std::filesystem::exists(argument, ec))
        throw UsageError(argument + ": no such file (and not a program: " + e.what() + ")");
    }
    throw;
  }
}

}  // namespace mixforge::cli
