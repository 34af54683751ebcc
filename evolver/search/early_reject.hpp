#pragma once
// Early reject: a child is scored in stages on one sample stream (N0, N0*g, ..., N) and
// dropped after a stage when, with the configured one-sided confidence, it is worse than
// the threshold: chi2_corrected - z * stderr > threshold (z = normal quantile). The run
// sets threshold = parent's chi2 * (1 + margin).
#include <cstdint>

#include "avalanche/evaluator.hpp"
#include "evolver/search/pool.hpp"
#include "evolver/search/run_config.hpp"

namespace mixforge::evolver {

struct StagedChild {
  Estimate estimate;          // at the last stage run
  bool rejected = false;
  std::uint64_t samples = 0;  // inputs evaluated
  std::uint64_t saved = 0;    // inputs the reject did not need (N - samples)
};

Estimate estimate_of(const avalanche::Score& score);

// small (optional) scores stages below small_limit step evaluations (no kernel compile);
// once a stage needs `main`, the next stage is the last (a kernel is compiled once).
StagedChild staged_with_reject(const mixer::Program& p, std::uint64_t samples, std::uint64_t seed,
                               const EarlyReject& er, double threshold, const avalanche::Evaluator& main,
                               const avalanche::Evaluator* small = nullptr, double small_limit = 0);

// Step evaluations of scoring p on this many inputs: inputs * (n + 1) * steps.
double scoring_work(const mixer::Program& p, std::uint64_t inputs);

// Below this much scoring work the interpreted counter is sooner than compiling a kernel:
// bench_avalanche's small_work rows put the crossover for a fresh 5-step 32-bit program
// between 2^12 samples (676k step evaluations; the JIT 1.5x slower) and 2^14 (2.7M; the
// JIT 2x faster), about 1.2M (bench/results/scoring/small_work/bench_avalanche_small_work.txt).
// A 7000-tournament, one-worker 32-bit run (tests/evolver/trap_test.cpp) took 40 s with
// 600k, 35 s with 1.2M and 41 s with 2.4M (one run each).
inline constexpr double default_small_work_limit = 1.2e6;

}  // namespace mixforge::evolver
