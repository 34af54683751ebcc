#pragma once
// Random valid programs for property tests (every step kind, any width).
#include <random>

#include "mixer/program.hpp"

namespace mixforge::testing {

inline mixer::Step random_step(std::mt19937_64& rng, int width, mixer::StepKind kind) {
  const std::uint64_t m = mixer::width_mask(width);
  mixer::Step s{kind, 0};
  if (mixer::takes_shift(kind)) {
    s.operand = 1 + rng() % static_cast<std::uint64_t>(width - 1);
  } else {
    s.operand = rng() & m;
    if (kind == mixer::StepKind::mul_const) s.operand |= 1;
  }
  return s;
}

// width 1 admits no shift kinds (no amount in 1..n-1).
inline mixer::Program random_program(std::mt19937_64& rng, int width, int steps) {
  std::vector<mixer::Step> v;
  while (static_cast<int>(v.size()) < steps) {
    const auto kind = static_cast<mixer::StepKind>(rng() % mixer::step_kind_count);
    if (width == 1 && mixer::takes_shift(kind)) continue;
    v.push_back(random_step(rng, width, kind));
  }
  return mixer::Program(width, std::move(v));
}

}  // namespace mixforge::testing
