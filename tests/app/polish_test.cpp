// The polish use case (app/polish.hpp): its rules name the field, a stop ends the climb
// where it is, and the JSON form carries the best's text and exact chi2.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <limits>

#include "app/polish.hpp"
#include "app/request_error.hpp"
#include "mixer/text_form.hpp"

using namespace mixforge;

namespace {

const std::string one_flip_away = "x ^= x >> 8; x *= 0xa3d3; x ^= x >> 7; x *= 0xcb2d; x ^= x >> 9;";

std::string field_of(const app::PolishRequest& r) {
  try {
    app::plan_polish(r);
  } catch (const app::RequestError& e) {
    return e.field();
  }
  return "(accepted)";
}

}  // namespace

TEST(PolishRules, RefusalsNameTheField) {
  EXPECT_EQ(field_of({one_flip_away, 16, std::nullopt}), "(accepted)");
  EXPECT_EQ(field_of({one_flip_away, 16, 30.0}), "(accepted)");
  EXPECT_EQ(field_of({"x ^= x >> 3;\nx *= ;", std::nullopt, std::nullopt}), "program");
  EXPECT_EQ(field_of({"x ^= x >> 3; x &= 0xff;", 16, std::nullopt}), "program");  // the mask says 8 bits
  EXPECT_EQ(field_of({R"({"width": 32, "steps": [{"kind": "xsr", "shift": 3}]})", 16, std::nullopt}), "width");
  EXPECT_EQ(field_of({"x ^= x >> 3; x *= 0x9e3779b9;", 40, std::nullopt}), "width");
  EXPECT_EQ(field_of({one_flip_away, 16, 0.0}), "seconds");
  EXPECT_EQ(field_of({one_flip_away, 16, -1.0}), "seconds");
  EXPECT_EQ(field_of({one_flip_away, 16, std::numeric_limits<double>::quiet_NaN()}), "seconds");
  EXPECT_EQ(field_of({one_flip_away, 16, std::numeric_limits<double>::infinity()}), "seconds");
  EXPECT_EQ(field_of({one_flip_away, 16, std::nullopt, "program", "fixed"}), "(accepted)");
  EXPECT_EQ(field_of({one_flip_away, 16, std::nullopt, "program", "sideways"}), "move_order");
  try {
    app::plan_polish({"x ^= x >> 3;\nx *= ;", std::nullopt, std::nullopt});
  } catch (const app::RequestError& e) {
    ASSERT_TRUE(e.position());
    EXPECT_EQ(e.position()->line, 2);
  }
}

TEST(Polish, AStopEndsTheClimbWhereItIs) {
  avalanche::Evaluator ev(nullptr);
  const app::PolishPlan plan = app::plan_polish({one_flip_away, 16, std::nullopt});
  std::atomic<bool> stop{false};
  int steps = 0;
  const app::PolishResult r =
      app::polish(ev, plan, &stop, [&](const evolver::Climb&, const evolver::ClimbStep&, double) {
        if (++steps == 5) stop = true;
      });
  EXPECT_EQ(steps, 5);
  EXPECT_EQ(r.scored, 6u);  // the start and five neighbours
  EXPECT_FALSE(r.local_optimum);
  EXPECT_EQ(r.start, plan.program);
  EXPECT_LE(r.best_chi2, r.start_chi2);
}

TEST(Polish, TheJsonFormHasTheBestsTextAndExactChi2) {
  avalanche::Evaluator ev(nullptr);
  const app::PolishResult r = app::polish(ev, app::plan_polish({one_flip_away, 16, std::nullopt}), nullptr);
  EXPECT_TRUE(r.local_optimum);
  EXPECT_EQ(r.moves, 1u);
  const nlohmann::json j = app::to_json(r);
  EXPECT_EQ(j["best"]["text"], mixer::format_program(r.best));
  EXPECT_EQ(j["best"]["chi2_exact"], r.best_chi2);
  EXPECT_EQ(j["best"]["chi2_exact"], app::interpreted_exact_chi2(r.best));
  EXPECT_EQ(j["start"]["chi2_exact"], r.start_chi2);
  EXPECT_EQ(j["moves"], 1);
  EXPECT_EQ(j["scored"], r.scored);
  EXPECT_EQ(j["local_optimum"], true);
}
