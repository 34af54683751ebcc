#include "mixer/interpreter.hpp"

namespace mixforge::mixer {

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

void apply_in_place(const Program& program, std::uint64_t* v, std::size_t count) {
  const std::uint64_t m = program.mask();
  const unsigned width = static_cast<unsigned>(program.width());
  for (std::size_t i = 0; i < count; ++i) v[i] &= m;
  // The same operations as apply_step, with the switch outside the loops.
  for (const Step& s : program.steps()) {
    const std::uint64_t c = s.operand;
    const unsigned k = static_cast<unsigned>(c & 63);
    switch (s.kind) {
      case StepKind::xor_const: for (std::size_t i = 0; i < count; ++i) v[i] = (v[i] ^ c) & m; break;
      case StepKind::mul_const: for (std::size_t i = 0; i < count; ++i) v[i] = (v[i] * c) & m; break;
      case StepKind::add_const: for (std::size_t i = 0; i < count; ++i) v[i] = (v[i] + c) & m; break;
      case StepKind::sub_const: for (std::size_t i = 0; i < count; ++i) v[i] = (v[i] - c) & m; break;
      case StepKind::xorshift_right: for (std::size_t i = 0; i < count; ++i) v[i] = (v[i] ^ (v[i] >> k)) & m; break;
      case StepKind::xorshift_left: for (std::size_t i = 0; i < count; ++i) v[i] = (v[i] ^ (v[i] << k)) & m; break;
      case StepKind::add_shift: for (std::size_t i = 0; i < count; ++i) v[i] = (v[i] + (v[i] << k)) & m; break;
      case StepKind::sub_shift: for (std::size_t i = 0; i < count; ++i) v[i] = (v[i] - (v[i] << k)) & m; break;
      case StepKind::rotate:
        if (k != 0)
          for (std::size_t i = 0; i < count; ++i) v[i] = ((v[i] << k) | (v[i] >> (width - k))) & m;
        break;
    }
  }
}

}  // namespace mixforge::mixer
