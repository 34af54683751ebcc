#pragma once
// Random steps and programs with constants suited to the width: shift and rotation
// amounts 1..n-1 biased toward n/2; multipliers odd, mostly large primes or products of
// two primes close to 2^n; xor/add/sub constants uniform.
#include <array>
#include <cstdint>
#include <vector>

#include "evolver/search/rng.hpp"
#include "mixer/program.hpp"

namespace mixforge::evolver {

bool is_prime(std::uint64_t n);  // deterministic Miller-Rabin for all 64-bit n

std::uint64_t random_shift(int width, Rng& rng);
std::uint64_t random_multiplier(int width, Rng& rng);
std::uint64_t random_operand(mixer::StepKind kind, int width, Rng& rng);
// The kinds a step may have at this width (shift kinds need width >= 2).
std::vector<mixer::StepKind> usable_kinds(const std::vector<mixer::StepKind>& kinds, int width);
using KindWeights = std::array<double, mixer::step_kind_count>;  // indexed by StepKind
// A random step of one of `kinds`, drawn in proportion to its weight (uniform without).
mixer::Step random_step(const std::vector<mixer::StepKind>& kinds, int width, Rng& rng,
                        const KindWeights* weights = nullptr);

struct ProgramShape {
  int width = 32;
  int min_steps = 1;
  int max_steps = 5;
  std::vector<mixer::StepKind> kinds;                   // allowed kinds (non-empty)
  std::vector<mixer::StepKind> kind_sequence;           // non-empty: every program has exactly these
  KindWeights kind_weights{1, 1, 1, 1, 1, 1, 1, 1, 1};  // relative odds of kinds in random steps
};

// A valid random program: the kind sequence if one is set, else min..max steps, drawn
// with a bias toward max_steps (longer programs mix better) and no two equal adjacent kinds
// where avoidable (x ^= x >> a; x ^= x >> b wastes a step more often than not).
mixer::Program random_program(const ProgramShape& shape, Rng& rng);

}  // namespace mixforge::evolver
