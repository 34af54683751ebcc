#pragma once
// A mixing program: a width and an ordered list of steps. A value type.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "mixer/step.hpp"
#include "mixer/width.hpp"

namespace mixforge::mixer {

class Program {
 public:
  Program() = default;
  Program(int width, std::vector<Step> steps) : width_(width), steps_(std::move(steps)) {}

  int width() const { return width_; }
  std::uint64_t mask() const { return width_mask(width_); }
  const std::vector<Step>& steps() const { return steps_; }
  std::size_t size() const { return steps_.size(); }
  bool empty() const { return steps_.empty(); }

  // Canonical form: "w32:xsr16,mul7feb352d,..." (kinds by short name, constants in
  // lowercase hex, amounts in decimal). Equal programs have equal canonical forms.
  std::string canonical() const;
  // Content hash (XXH3-64) of the canonical form, and the same as 16 hex digits.
  std::uint64_t hash() const;
  std::string id() const;

  friend bool operator==(const Program&, const Program&) = default;

 private:
  int width_ = 32;
  std::vector<Step> steps_;
};

// A program that breaks a rule of the model. step_index is -1 for whole-program errors.
class ProgramError : public std::runtime_error {
 public:
  ProgramError(int step_index, const std::string& message)
      : std::runtime_error(message), step_index_(step_index) {}
  int step_index() const { return step_index_; }

 private:
  int step_index_;
};

struct ValidationLimits {
  int max_steps = 64;
};

// Throws ProgramError naming the first broken rule: unknown width, too many steps, even
// multiplier, shift or rotation outside 1..n-1, constant that does not fit n bits.
void validate(const Program& program, const ValidationLimits& limits = {});
// The message validate() would throw for one step, or empty when the step is valid.
std::string step_error(const Step& step, int width);

}  // namespace mixforge::mixer
