#pragma once
// The error every use case throws for a request that breaks its rules. It names the
// concept that is wrong in the request's own terms, as a path ("program",
// "program.steps[2].constant", "samples", "spp"); each entry point spells that path its
// own way: the daemon as a JSON pointer in a 422 problem ("/samples"), the command line
// as its option ("--samples") with exit status 2. So the CLI and HTTP name the same field
// for the same bad request, and the rule exists once.
#include <optional>
#include <stdexcept>
#include <string>

namespace mixforge::app {

// Where in program text (1-based), for errors that point into it.
struct TextPosition {
  int line = 0;
  int column = 0;
};

class RequestError : public std::runtime_error {
 public:
  // code: a stable slug ("invalid-program", "width-mismatch", "evaluation-too-costly",
  // "out-of-range", "conflicting-fields"); message: a sentence for a person, without the
  // field's spelling (the entry point adds it).
  RequestError(std::string field, std::string code, const std::string& message,
               std::optional<TextPosition> at = std::nullopt)
      : std::runtime_error(message), field_(std::move(field)), code_(std::move(code)), at_(at) {}
  const std::string& field() const { return field_; }
  const std::string& code() const { return code_; }
  const std::optional<TextPosition>& position() const { return at_; }

 private:
  std::string field_;
  std::string code_;
  std::optional<TextPosition> at_;
};

// "program.steps[2].constant" under prefix "mixers.programs[1]" and the like: a field path
// below another (an empty path is the prefix itself).
std::string field_below(const std::string& prefix, const std::string& path);

}  // namespace mixforge::app
