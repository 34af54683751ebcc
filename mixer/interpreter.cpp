#include "mixer/interpreter.hpp"

namespace mixforge {

std::uint64_t apply_step(const Step& s, std::uint64_t x, int width) {
  const std::uint64_t m = width_mask(width);
  const std::uint64_t c = s.operand;
  // Shift amounts are < width <= 64 for valid programs; guard anyway (no UB on bad input).
  const unsigned k = static_cast<unsigned>(c & 63);
  switch (s.kind) {
    case StepKind::xor_const: x ^= c; break;
    case StepKind::mul_const: x *= c; break;
    case StepKind::add_const: x += c; break;
    case StepKind::sub_const: x -= c; break;
    case StepKind::xorshift_right: x ^= (x & m) >> k; break;
    case StepKind::xorshift_left: x ^= x << k; break;
    case StepKind::add_shift: x += x << k; break;
    case StepKind::sub_shift: x -= x << k; break;
    case StepKind::rotate:
      x &= m;
      x = k == 0 ? x : (x << k) | (x >> (static_cast<unsigned>(width) - k));
      break;
  }
  return x & m;
}

std::uint64_t apply(const Program& program, std::uint64_t x) {
  x &= program.mask();
  for (const Step& s : program.steps()) x = apply_step(s, x, program.width());
  return x;
}

}  // namespace mixforge
