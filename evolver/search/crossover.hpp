#pragma once
// Crossover between two programs of the same shape (the same sequence of step kinds):
// at each position the child takes either parent's operand (uniform crossover). Coupled
// constants (a multiplier and the shift after it) travel together more often than one
// mutation at a time can move them; the memetic search's recombination of local optima.
#include <optional>

#include "evolver/search/rng.hpp"
#include "mixer/program.hpp"

namespace mixforge::evolver {

// True when a and b have the same width and the same kinds in the same order.
bool same_shape(const mixer::Program& a, const mixer::Program& b);

// A child of a and b (same shape) that differs from both, or nullopt when none was found
// in a few draws (the parents differ in at most one position).
std::optional<mixer::Program> crossover(const mixer::Program& a, const mixer::Program& b, Rng& rng);

}  // namespace mixforge::evolver
