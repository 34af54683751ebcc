#pragma once
// Early reject: a child is scored in stages on one sample stream (N0, N0*g, ..., N) and
// dropped after a stage when, with the configured one-sided confidence, it is worse than
// the threshold: chi2_corrected - z * stderr > threshold (z = normal quantile). The run
// sets threshold = parent's chi2 * (1 + margin).
#include <cstdint>

#include "avalanche/evaluator.hpp"
#include "evolver/pool.hpp"
#include "evolver/run_config.hpp"

namespace mixforge::evolver {

struct StagedChild {
  Estimate estimate;          // at the last stage run
  bool rejected = false;
  std::uint64_t samples = 0;  // inputs evaluated
  std::uint64_t saved = 0;    // inputs the reject did not need (N - samples)
};

Estimate estimate_of(const Score& score);

// small (optional) scores stages below small_limit step evaluations (no kernel compile);
// once a stage needs `main`, the next stage is the last (a kernel is compiled once).
StagedChild staged_with_reject(const Program& p, std::uint64_t samples, std::uint64_t seed,
                               const EarlyReject& er, double threshold, const Evaluator& main,
                               const Evaluator* small = nullptr, double small_limit = 0);

// Step evaluations of scoring p on this many inputs: inputs * (n + 1) * steps.
double scoring_work(const Program& p, std::uint64_t inputs);

}  // namespace mixforge::evolver
