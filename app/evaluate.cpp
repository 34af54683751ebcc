#include "app/evaluate.hpp"

#include <algorithm>
#include <string>

#include "app/request_error.hpp"

namespace mixforge::app {

namespace {
// The exact kernels count 2^n inputs in 64-bit counters: 32 bits is the model's limit.
constexpr int exact_width_limit = 32;
}  // namespace

EvaluatePolicy command_line_policy() { return {}; }

EvaluatePolicy command_line_batch_policy() {
  EvaluatePolicy p;
  p.exact_up_to_width = 0;
  p.default_samples = 1ull << 20;
  return p;
}

EvaluatePolicy daemon_policy(int max_exact_width, std::uint64_t max_samples) {
  EvaluatePolicy p;
  p.exact_up_to_width = 20;
  p.default_samples = 1ull << 20;
  p.max_exact_width = max_exact_width;
  p.max_samples = max_samples;
  return p;
}

EvaluationPlan plan_evaluation(const EvaluateRequest& r, const EvaluatePolicy& policy) {
  const int n = r.program.width();
  if (r.exact.value_or(false) && r.samples)
    throw RequestError("samples", "conflicting-fields", "give either exact or samples, not both");
  EvaluationPlan plan;
  plan.exact = r.exact.value_or(!r.samples && n <= policy.exact_up_to_width);
  plan.samples = r.samples.value_or(policy.default_samples);
  plan.seed = r.seed;
  if (plan.exact && n > exact_width_limit)
    throw RequestError("exact", "evaluation-too-costly",
                       "exact evaluation needs width <= 32 (width " + std::to_string(n) + " has 2^" +
                           std::to_string(n) + " inputs); ask for samples instead");
  const int exact_limit = std::min(exact_width_limit, policy.max_exact_width);
  if (plan.exact && n > exact_limit)
    throw RequestError("exact", "evaluation-too-costly",
                       "exact evaluation of a " + std::to_string(n) + "-bit program is over the limit of " +
                           std::to_string(exact_limit) + " bits here; ask for samples instead");
  if (!plan.exact && plan.samples == 0)
    throw RequestError("samples", "out-of-range", "samples must be at least 1");
  if (!plan.exact && plan.samples > policy.max_samples)
    throw RequestError("samples", "evaluation-too-costly",
                       std::to_string(plan.samples) + " samples is over the limit of " +
                           std::to_string(policy.max_samples) + " per evaluation");
  return plan;
}

}  // namespace mixforge::app
