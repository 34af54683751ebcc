#pragma once
// The text form: C-like statements (and the original write-up's JavaScript form).
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "mixer/program.hpp"

namespace mixforge::mixer {

// A text that is not a valid program; what() is "line:column: message".
class ParseError : public std::runtime_error {
 public:
  ParseError(int line, int column, const std::string& message);
  int line() const { return line_; }
  int column() const { return column_; }
  const std::string& message() const { return message_; }

 private:
  int line_, column_;
  std::string message_;
};

struct ParseOptions {
  std::optional<int> width;  // else the width a mask gives (x & 127 -> 7), else 32
  int max_steps = 64;
};

struct ParsedText {
  Program program;
  std::optional<int> mask_width;  // the width a mask in the text gave, if any
  std::string variable;           // the variable name used in the text
};

// Parses and validates; throws ParseError with line and column on any problem.
ParsedText parse_text(std::string_view text, const ParseOptions& options = {});
inline Program parse_program(std::string_view text, const ParseOptions& options = {}) {
  return parse_text(text, options).program;
}

// Plain C-like form, one statement per line, no trailing newline:
// "x ^= x >> 16;\nx *= 0x7feb352d;\n..."  parse_program(format_program(p)) == p.
std::string format_program(const Program& program, std::string_view variable = "x");
std::string format_step(const Step& step, int width, std::string_view variable = "x");
// Compact one-line form: "xsr 16, mul 0x7feb352d, xsr 15".
std::string format_short(const Program& program);
// A constant as the text form writes it: "0x7feb352d".
std::string hex_literal(std::uint64_t value);

}  // namespace mixforge::mixer
