#include "mixer/program.hpp"

#include <xxhash.h>

#include <cstdio>

#include "mixer/text_form.hpp"

namespace mixforge::mixer {

std::string Program::canonical() const {
  std::string s = "w" + std::to_string(width_) + ":";
  char buf[32];
  for (std::size_t i = 0; i < steps_.size(); ++i) {
    const Step& st = steps_[i];
    if (i) s += ',';
    s += kind_short_name(st.kind);
    if (takes_shift(st.kind))
      std::snprintf(buf, sizeof buf, "%llu", static_cast<unsigned long long>(st.operand));
    else
      std::snprintf(buf, sizeof buf, "%llx", static_cast<unsigned long long>(st.operand));
    s += buf;
  }
  return s;
}

std::uint64_t Program::hash() const {
  const std::string c = canonical();
  return XXH3_64bits(c.data(), c.size());
}

std::string Program::id() const {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(hash()));
  return buf;
}


std::string step_error(const Step& step, int width) {
  const std::uint64_t m = width_mask(width);
  const std::string n = std::to_string(width);
  if (takes_shift(step.kind)) {
    if (step.operand < 1 || step.operand >= static_cast<std::uint64_t>(width)) {
      const char* what = step.kind == StepKind::rotate ? "rotation" : "shift";
      if (width == 1)
        return std::string(what) + " " + std::to_string(step.operand) +
               " is not possible at width 1 (no amount lies in 1..n-1)";
      return std::string(what) + " " + std::to_string(step.operand) + " is outside 1.." +
             std::to_string(width - 1) + " for width " + n;
    }
    return {};
  }
  if (step.operand & ~m)
    return "constant " + hex_literal(step.operand) + " does not fit in " + n + " bits (largest is " +
           hex_literal(m) + ")";
  if (step.kind == StepKind::mul_const && (step.operand & 1) == 0)
    return "multiplier " + hex_literal(step.operand) + " is even; a multiply step needs an odd constant";
  return {};
}

void validate(const Program& program, const ValidationLimits& limits) {
  if (!valid_width(program.width()))
    throw ProgramError(-1, "width " + std::to_string(program.width()) +
                               " is not supported (widths are 1..64)");
  if (static_cast<int>(program.size()) > limits.max_steps)
    throw ProgramError(-1, "program has " + std::to_string(program.size()) +
                               " steps; the limit is " + std::to_string(limits.max_steps));
  for (std::size_t i = 0; i < program.size(); ++i) {
    std::string e = step_error(program.steps()[i], program.width());
    if (!e.empty()) throw ProgramError(static_cast<int>(i), e);
  }
}

}  // namespace mixforge::mixer
