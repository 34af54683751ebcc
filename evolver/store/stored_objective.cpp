#include "evolver/store/stored_objective.hpp"

#include <algorithm>

#include "avalanche/evaluator.hpp"

namespace mixforge::evolver {

void measure_objective(std::vector<ScoredFunction>& functions, const RunConfig& config,
                       const avalanche::Evaluator* evaluator) {
  if (!config.objective.enabled()) return;
  for (ScoredFunction& f : functions) {
    if (f.objective || f.width != config.width) continue;
    const avalanche::BatchFunction fn =
        evaluator ? evaluator->batch_function(f.program) : avalanche::interpreted_function(f.program);
    f.objective = objective_terms(fn, f.width, config.objective, objective_seed(config.seed), nullptr, f.chi2);
  }
  std::stable_sort(functions.begin(), functions.end(),
                   [](const ScoredFunction& a, const ScoredFunction& b) { return a.rank() < b.rank(); });
}

}  // namespace mixforge::evolver
