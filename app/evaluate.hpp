#pragma once
// The evaluate use case: score one program, exactly (all 2^n inputs) or from samples.
// The rules (which mode without an explicit choice, how many samples, what is refused)
// live here; the entry points differ only in their EvaluatePolicy, below.
#include <atomic>
#include <cstdint>
#include <optional>

#include "avalanche/evaluator.hpp"
#include "mixer/program.hpp"

namespace mixforge::app {

struct EvaluatePolicy {
  int exact_up_to_width = 32;          // without exact/samples: exact up to this width
  std::uint64_t default_samples = 1ull << 22;
  int max_exact_width = 32;            // an exact count above it is refused ("exact")
  std::uint64_t max_samples = ~0ull;   // more samples are refused ("samples")
};

// Where the entry points differ on purpose, and why (the only place they do):
// - the command line scores on the user's own cores for the user alone: exact up to 32
//   bits by default (about 2 s at 32 bits), 2^22 samples above, no caps;
// - a batch (eval --batch) scores many programs: sampled 2^20 unless asked;
// - the daemon shares its cores with runs and other clients: exact up to 20 bits by
//   default (milliseconds), 2^20 samples, and the server's caps (--max-exact-width,
//   --max-samples).
EvaluatePolicy command_line_policy();
EvaluatePolicy command_line_batch_policy();
EvaluatePolicy daemon_policy(int max_exact_width, std::uint64_t max_samples);

struct EvaluateRequest {
  mixer::Program program;
  std::optional<bool> exact;             // fields "exact" and "samples"
  std::optional<std::uint64_t> samples;
  std::uint64_t seed = 1;
};

struct EvaluationPlan {
  bool exact = false;
  std::uint64_t samples = 0;  // when not exact
  std::uint64_t seed = 1;
};

// The request checked against the policy: throws RequestError naming "samples" (exact and
// samples both given, samples above the cap) or "exact" (wider than 32 bits or the cap).
EvaluationPlan plan_evaluation(const EvaluateRequest& request, const EvaluatePolicy& policy);

// Scores it; cancel: an exact count stops between tiles once set (EvaluationCancelled).
// Inline: the rules' object file needs no Evaluator (the request fuzzer links the rules only).
inline avalanche::ScoredCounts evaluate(const avalanche::Evaluator& evaluator, const mixer::Program& program,
                                        const EvaluationPlan& plan, const std::atomic<bool>* cancel = nullptr) {
  return evaluator.scored_counts(program, plan.exact, plan.samples, plan.seed, cancel);
}

}  // namespace mixforge::app
