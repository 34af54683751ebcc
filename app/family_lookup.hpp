#pragma once
// The best family of stored functions with the same step kinds for some lane widths: what
// `mixforge export --family`, `mixforge bake --run` and POST /api/v1/bakes {"mixers":
// {"run": ...}} take (one use case for the CLI and the daemon). It joins the store
// (evolver/) and the family search (shader/).
#include <stdexcept>
#include <string>
#include <vector>

#include "evolver/run/run_types.hpp"

namespace mixforge::evolver { class RunManager; }

namespace mixforge::app {

// No family there; what() says where it looked and how to grow one.
class NoFamily : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// From run `run`'s pool, or from the hall of fame when run is empty. Members in lane order.
// Throws evolver::RunNotFound, NoFamily, or std::invalid_argument (bad widths, a score
// that cannot rank).
std::vector<evolver::ScoredFunction> best_family(evolver::RunManager& store, const std::string& run,
                                                 const std::vector<int>& widths);

}  // namespace mixforge::app
