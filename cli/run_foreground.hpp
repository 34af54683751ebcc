#pragma once
// Running an evolution run in the foreground of the CLI (mixforge evolve, mixforge runs
// resume): live progress line on a terminal, clean stop on Ctrl-C, final report.
#include <string>

#include "evolver/manager/run_manager.hpp"

namespace mixforge::cli {

struct ForegroundOptions {
  bool json = false;  // final stdout line: {"run_id": ..., "best": [...]}
  int top = 5;        // best functions printed at the end
};

// Blocks until the run ends (budget, failure, or Ctrl-C / SIGTERM: stop after the final
// checkpoint). Returns the process exit code (1 when the run failed).
int run_in_foreground(evolver::RunManager& manager, const std::string& run_id,
                      const ForegroundOptions& options);

// The data directory: --data, else $MIXFORGE_DATA, else ./mixforge-data.
std::string data_directory(const std::string& option);

// "   objective: total ... (bic ..., higher order ...[, RRC depth ...])" for a function whose run has an
// objective (empty when f has no terms): a line under the function's heading.
std::string objective_line(const evolver::ScoredFunction& f);

// "climb 1: xsr 8, mul 0xa3d3, ... chi2 0.006733454764 (exact), 1 move, 120 exact scores, local
// optimum" for the climb from seed program `index` (0-based) of a run with seed_programs.
std::string climb_line(const evolver::ClimbStatus& c);

}  // namespace mixforge::cli
