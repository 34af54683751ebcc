#pragma once
// Mutations: a child differs from its parent by exactly one of five changes. Every child
// is a valid program of the run's shape (tests/evolver/mutation_test.cpp checks this).
#include <string_view>

#include "evolver/search/random_program.hpp"
#include "evolver/search/run_config.hpp"

namespace mixforge::evolver {

enum class MutationKind { constant_small, constant_large, swap, remove, insert };
inline constexpr int mutation_kind_count = 5;
std::string_view mutation_name(MutationKind kind);

struct Mutated {
  mixer::Program program;
  MutationKind kind;
};

// The child differs from the parent (same width, steps within the shape). With a kind
// sequence only constants change. Mutations that cannot apply (remove at min_steps,
// insert at max_steps, swap of two equal steps) are skipped in the weighted draw.
Mutated mutate(const mixer::Program& parent, const ProgramShape& shape, const MutationWeights& weights, Rng& rng);

// One step's operand moved a little: a shift by +-1 or +-2 inside 1..n-1; a constant by
// flipping one bit or adding a small even (multipliers stay odd) amount. Returns false
// when no different value exists (a shift at width 2).
bool nudge(mixer::Step& step, int width, Rng& rng);

}  // namespace mixforge::evolver
