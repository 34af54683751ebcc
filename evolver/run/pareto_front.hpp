#pragma once
// The Pareto front of a run's functions (GET /api/v1/runs/{id}/front): those no other
// function beats on every score at once. The scores: the avalanche chi2 (lower is better),
// the RRC depth where the run measures it (deeper is better: the longest stream length
// passed), and the cost in steps (fewer is better). The run's tournament ranks by one
// weighted total (evolver/search/objective.hpp); the front is what a user picks from.
#include <string>
#include <vector>

#include "evolver/run/run_types.hpp"

namespace mixforge::evolver {

struct ParetoFront {
  std::vector<std::string> objectives;  // "chi2", "rrc_depth_log2" (when measured), "steps"
  std::vector<ScoredFunction> items;    // the front, lowest chi2 first
};

// Functions whose RRC depth is known are compared on all three scores; when some are
// known, those without are left out (an unknown depth is not a point on the front). When
// none is known, the front is over chi2 and steps.
ParetoFront pareto_front(const std::vector<ScoredFunction>& functions);

}  // namespace mixforge::evolver
