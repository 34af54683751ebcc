#pragma once
// Exact ranking of leaders. Sampled scores cannot tell good functions apart (the noise
// floor is n^2 / 2N), so every leader_interval tournaments the run re-scores its best few
// members at 4x their sample count (fresh inputs; inline, so tournaments compare the
// better estimates and a one-thread run stays reproducible), and hands the leaders that
// could still beat the run's exact best to a background thread that scores them exactly
// (n <= 32). The run's best is always one with an exact score.
#include <cstdint>
#include <optional>
#include <vector>

#include "avalanche/evaluator.hpp"
#include "evolver/search/early_reject.hpp"
#include "evolver/search/pool.hpp"
#include "evolver/search/run_config.hpp"

namespace mixforge::evolver {

struct RescoreJob {
  mixer::Program program;
  std::uint64_t hash = 0;
  bool exact = false;
  std::uint64_t samples = 0;  // when not exact
  std::uint64_t seed = 0;
};

struct RescoreResult {
  std::uint64_t hash = 0;
  mixer::Program program;
  Estimate estimate;
};

// Which leaders to re-score with more samples now.
std::vector<RescoreJob> plan_leader_rescoring(const Pool& pool, const RunConfig& config);
// Leaders worth an exact score, most promising first: not exact yet, not in `done`, and
// estimate - 3 standard errors below best_exact (the rank of the run's best exact score
// so far: its chi2 plus the objective's penalty, 0 without one).
std::vector<Member> exact_candidates(const Pool& pool, const RunConfig& config,
                                     std::optional<double> best_exact,
                                     const std::vector<std::uint64_t>& done);
RescoreResult run_rescore(const RescoreJob& job, const avalanche::Evaluator& evaluator);

}  // namespace mixforge::evolver
