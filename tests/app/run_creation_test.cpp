// app/run_creation: a run's configuration by the evolver's rules, named fields, and the
// entry points' default budgets.
#include <gtest/gtest.h>

#include <cmath>

#include "app/request_error.hpp"
#include "app/run_creation.hpp"

namespace mixforge::app {
namespace {

std::string refusal(const RunCreationRequest& r) {
  try {
    plan_run(r, daemon_run_policy());
  } catch (const RequestError& e) {
    EXPECT_EQ(e.code(), "invalid-run-config");
    // The message is the rule's, without the field's spelling (the entry point adds it).
    EXPECT_NE(std::string(e.what()).rfind(e.field() + ":", 0), 0u) << e.what();
    return e.field();
  }
  return "(accepted)";
}

RunCreationRequest of(const char* json) { return {nlohmann::json::parse(json), std::nullopt}; }

TEST(RunCreationRules, RefusalsNameTheField) {
  EXPECT_EQ(refusal(of(R"({"width": 65})")), "width");
  EXPECT_EQ(refusal(of(R"({"min_steps": 6, "max_steps": 5})")), "min_steps");
  EXPECT_EQ(refusal(of(R"({"pool_size": 1})")), "pool_size");
  EXPECT_EQ(refusal(of(R"({"kind_sequence": ["xsr", "foo"]})")).rfind("kind_sequence", 0), 0u);
  EXPECT_EQ(refusal(of(R"({"kind_sequence": ["xsr", "mul"], "max_steps": 1})")), "kind_sequence");
  EXPECT_EQ(refusal(of(R"({"objective": {"samples": 8}})")), "objective.samples");
  EXPECT_EQ(refusal(of(R"({"seed": -1})")), "seed");
  EXPECT_EQ(refusal(of(R"({"width": 16, "max_steps": 4})")), "(accepted)");
}

TEST(RunCreationRules, ABudgetBesideTheConfigurationIsCheckedAndReplacesItsOwn) {
  RunCreationRequest r = of(R"({"budget": {"seconds": 5}})");
  r.budget = evolver::Budget{std::nan(""), std::nullopt};
  EXPECT_EQ(refusal(r), "budget.seconds");
  r.budget = evolver::Budget{std::nullopt, 0};
  EXPECT_EQ(refusal(r), "budget.tournaments");
  r.budget = evolver::Budget{std::nullopt, 1000};
  const evolver::RunConfig c = plan_run(r, daemon_run_policy());
  EXPECT_FALSE(c.budget.seconds);
  EXPECT_EQ(c.budget.tournaments, 1000u);
}

TEST(RunCreationRules, DefaultBudgetsDifferByPolicyAsDocumented) {
  EXPECT_EQ(plan_run(of("{}"), command_line_run_policy()).budget.seconds, 600.0);
  EXPECT_FALSE(plan_run(of("{}"), daemon_run_policy()).budget.seconds);
  // A configuration's own budget (null: none) wins over the command line's default.
  EXPECT_FALSE(plan_run(of(R"({"budget": null})"), command_line_run_policy()).budget.seconds);
  EXPECT_EQ(plan_run(of(R"({"budget": {"seconds": 5}})"), command_line_run_policy()).budget.seconds, 5.0);
}

}  // namespace
}  // namespace mixforge::app
