#pragma once
// Reading a PROGRAM argument: the text itself, a file path, or "-" for stdin.
#include <optional>
#include <string>

#include "mixer/text_form.hpp"

namespace mixforge::cli {

// The text behind the argument: "-" reads stdin, an existing file is read, anything else
// is taken as program text.
std::string read_program_argument(const std::string& argument);
// Parses it by the use case's rules (app/program_input.hpp): errors are app::RequestErrors
// naming the field (PROGRAM, --width), a word that is neither a file nor a program a
// UsageError.
mixer::ParsedText parse_program_argument(const std::string& argument, std::optional<int> width, int max_steps = 64);

}  // namespace mixforge::cli
