#pragma once
// Functions from a mixforge database for the commands that take them by id or as a family
// (`export FUNCTION_ID`, `export --family`, `bake --mixers FUNCTION_ID`, `bake --run`).
// Errors are UsageErrors naming the command, the folder or the id.
#include <memory>
#include <string>
#include <vector>

#include "evolver/run/run_types.hpp"

namespace mixforge::evolver { class RunManager; }

namespace mixforge::cli {

// Opens the database in `data` for lookups only (no JIT, never creates one); command
// ("export", "bake") prefixes the error when there is none.
std::unique_ptr<evolver::RunManager> open_store(const std::string& data, const std::string& command);

// The best family of functions with the same step kinds for these lane widths (1..4, each
// <= 32): from run `run`'s pool, or from the hall of fame when run is empty. Members in
// lane order.
std::vector<evolver::ScoredFunction> best_family(evolver::RunManager& store, const std::string& run,
                                                 const std::vector<int>& widths, const std::string& command);

}  // namespace mixforge::cli
