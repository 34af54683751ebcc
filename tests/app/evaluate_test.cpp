// app/evaluate: which mode, how many samples, what is refused; the entry points' policies.
#include <gtest/gtest.h>

#include "app/evaluate.hpp"
#include "app/request_error.hpp"
#include "mixer/text_form.hpp"

namespace mixforge::app {
namespace {

mixer::Program of_width(int n) { return mixer::parse_program("x ^= x >> 1;", {n}); }

EvaluateRequest request(mixer::Program p, std::optional<bool> exact = std::nullopt,
                        std::optional<std::uint64_t> samples = std::nullopt) {
  return {std::move(p), exact, samples, 1};
}

std::string field_of(const EvaluateRequest& r, const EvaluatePolicy& p) {
  try {
    plan_evaluation(r, p);
  } catch (const RequestError& e) {
    return e.field();
  }
  return "(accepted)";
}

TEST(EvaluateRules, DefaultsDifferByPolicyAsDocumented) {
  const EvaluatePolicy cli = command_line_policy(), batch = command_line_batch_policy();
  const EvaluatePolicy daemon = daemon_policy(32, 1ull << 24);
  EXPECT_TRUE(plan_evaluation(request(of_width(32)), cli).exact);
  EXPECT_FALSE(plan_evaluation(request(of_width(33)), cli).exact);
  EXPECT_EQ(plan_evaluation(request(of_width(33)), cli).samples, 1ull << 22);
  EXPECT_FALSE(plan_evaluation(request(of_width(16)), batch).exact);
  EXPECT_EQ(plan_evaluation(request(of_width(16)), batch).samples, 1ull << 20);
  EXPECT_TRUE(plan_evaluation(request(of_width(20)), daemon).exact);
  EXPECT_FALSE(plan_evaluation(request(of_width(21)), daemon).exact);
  EXPECT_EQ(plan_evaluation(request(of_width(21)), daemon).samples, 1ull << 20);
  // Samples asked for: sampled whatever the width.
  EXPECT_FALSE(plan_evaluation(request(of_width(8), std::nullopt, 1000), cli).exact);
}

TEST(EvaluateRules, RefusalsNameTheField) {
  const EvaluatePolicy cli = command_line_policy();
  EXPECT_EQ(field_of(request(of_width(16), true, 1000), cli), "samples");
  EXPECT_EQ(field_of(request(of_width(33), true), cli), "exact");
  EXPECT_EQ(field_of(request(of_width(16), false, 0), cli), "samples");
  const EvaluatePolicy daemon = daemon_policy(24, 1u << 16);
  EXPECT_EQ(field_of(request(of_width(25), true), daemon), "exact");
  EXPECT_EQ(field_of(request(of_width(24), true), daemon), "(accepted)");
  EXPECT_EQ(field_of(request(of_width(40), std::nullopt, (1u << 16) + 1), daemon), "samples");
}

TEST(EvaluateRules, TheUseCaseScoresWhatThePlanSays) {
  const avalanche::Evaluator ev(nullptr);  // the interpreter: nothing to compile
  const mixer::Program p =
      mixer::parse_program("x ^= x >> 8; x *= 0xa3d3; x ^= x >> 7; x *= 0x4b2d; x ^= x >> 9;", {16});
  const avalanche::ScoredCounts exact = evaluate(ev, p, plan_evaluation(request(p), command_line_policy()));
  EXPECT_TRUE(exact.score.exact);
  EXPECT_NEAR(exact.score.chi2, 6.7335e-3, 1e-7);  // the published 2-round record
  const avalanche::ScoredCounts sampled =
      evaluate(ev, p, plan_evaluation(request(p, std::nullopt, 4096), command_line_policy()));
  EXPECT_FALSE(sampled.score.exact);
  EXPECT_EQ(sampled.score.samples, 4096u);
}

}  // namespace
}  // namespace mixforge::app
