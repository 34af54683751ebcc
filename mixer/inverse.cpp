#include "mixer/inverse.hpp"

namespace mixforge::mixer {

std::uint64_t inverse_mod_2_64(std::uint64_t a) {
  std::uint64_t x = a;  // correct to 3 bits for odd a; each step doubles the bits
  for (int i = 0; i < 5; ++i) x *= 2 - a * x;
  return x;
}

Program inverse(const Program& program) {
  const int n = program.width();
  const std::uint64_t m = program.mask();
  std::vector<Step> out;
  for (auto it = program.steps().rbegin(); it != program.steps().rend(); ++it) {
    const std::uint64_t c = it->operand;
    switch (it->kind) {
      case StepKind::xor_const: out.push_back(*it); break;
      case StepKind::mul_const:
        out.push_back({StepKind::mul_const, inverse_mod_2_64(c) & m});
        break;
      case StepKind::add_const: out.push_back({StepKind::sub_const, c}); break;
      case StepKind::sub_const: out.push_back({StepKind::add_const, c}); break;
      case StepKind::xorshift_right:
      case StepKind::xorshift_left:
        // y = x ^ (x >> k) is undone by y ^= y >> k; y ^= y >> 2k; y ^= y >> 4k; ...
        for (std::uint64_t s = c; s < static_cast<std::uint64_t>(n); s *= 2)
          out.push_back({it->kind, s});
        break;
      case StepKind::add_shift:  // x * (1 + 2^k)
        out.push_back({StepKind::mul_const, inverse_mod_2_64(1 + (std::uint64_t{1} << c)) & m});
        break;
      case StepKind::sub_shift:  // x * (1 - 2^k)
        out.push_back({StepKind::mul_const, inverse_mod_2_64(1 - (std::uint64_t{1} << c)) & m});
        break;
      case StepKind::rotate:
        out.push_back({StepKind::rotate, static_cast<std::uint64_t>(n) - c});
        break;
    }
  }
  return Program(n, std::move(out));
}

}  // namespace mixforge::mixer
