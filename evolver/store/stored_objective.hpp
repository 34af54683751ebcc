#pragma once
// The objective's terms of functions read back from the store. The store keeps no terms
// (its tables have no column for them, and the schema stays as it is); they are a function
// of the program and the run's configuration (weights, samples, seed), so they are
// measured again, with the same values the run had, when a listing shows them.
#include <vector>

#include "evolver/search/run_config.hpp"
#include "evolver/run/run_types.hpp"

namespace mixforge::avalanche {
class Evaluator;
}

namespace mixforge::evolver {

// Fills f.objective where it is missing and the run has an objective, then orders by
// rank() (the total), best first. evaluator (may be null: the interpreter) computes.
// A few milliseconds per 32-bit function with the JIT (README, "Objective").
void measure_objective(std::vector<ScoredFunction>& functions, const RunConfig& config,
                       const avalanche::Evaluator* evaluator = nullptr);

}  // namespace mixforge::evolver
