// app/quality: which size, which options go with a stored function or with program text,
// and the entry points' policies.
#include <gtest/gtest.h>

#include "app/quality.hpp"
#include "app/request_error.hpp"

namespace mixforge::app {
namespace {

std::string refusal(const QualityRequest& r, const QualityPolicy& p = command_line_quality_policy()) {
  try {
    plan_quality(r, p);
  } catch (const RequestError& e) {
    return e.field() + " " + e.code();
  }
  return "(accepted)";
}

QualityRequest text() {
  QualityRequest r;
  r.stored = false;
  return r;
}

TEST(QualityRules, DefaultsAreTheSharedReport) {
  const QualityPlan p = plan_quality({}, daemon_quality_policy(24));
  EXPECT_EQ(p.options.size, avalanche::BatterySize::standard);
  EXPECT_EQ(p.options.seed, 1u);
  EXPECT_TRUE(p.options.battery);
  EXPECT_FALSE(p.refresh);
  QualityRequest quick;
  quick.size = "quick";
  quick.seed = 7;
  quick.battery = false;
  const QualityPlan q = plan_quality(quick, command_line_quality_policy());
  EXPECT_EQ(q.options.size, avalanche::BatterySize::quick);
  EXPECT_EQ(q.options.seed, 7u);
  EXPECT_FALSE(q.options.battery);
}

TEST(QualityRules, RefusalsNameTheField) {
  QualityRequest r;
  r.size = "huge";
  EXPECT_EQ(refusal(r), "size out-of-range");
  r = {};
  r.width = 16;
  EXPECT_EQ(refusal(r), "width conflicting-fields");  // a stored function has its own
  r = text();
  r.width = 16;
  EXPECT_EQ(refusal(r), "(accepted)");
  r.refresh = true;
  EXPECT_EQ(refusal(r), "refresh conflicting-fields");  // reports of text are not cached
  EXPECT_EQ(refusal(text(), daemon_quality_policy(24)), "program invalid-program");
  r = text();
  r.rrc_cap_log2 = 20;
  EXPECT_EQ(refusal(r), "rrc_cap_log2 conflicting-fields");  // a cap without the battery
  r.rrc = true;
  EXPECT_EQ(refusal(r), "(accepted)");
  r.rrc_cap_log2 = 10;
  EXPECT_EQ(refusal(r), "rrc_cap_log2 out-of-range");
  r.rrc_cap_log2 = 41;
  EXPECT_EQ(refusal(r), "rrc_cap_log2 out-of-range");
}

TEST(QualityRules, TheRrcBatteryNeedsEightToSixtyFourBits) {
  QualityRequest r = text();
  r.rrc = true;
  const QualityPlan plan = plan_quality(r, command_line_quality_policy());
  EXPECT_EQ(plan.options.rrc_cap_log2, avalanche::rrc::default_cap_log2);
  try {
    check_quality_width(plan, 7);
    ADD_FAILURE() << "a 7-bit function was accepted";
  } catch (const RequestError& e) {
    EXPECT_EQ(e.field(), "rrc");
  }
  EXPECT_NO_THROW(check_quality_width(plan, 8));
  EXPECT_NO_THROW(check_quality_width(plan_quality(text(), command_line_quality_policy()), 7));  // no battery asked
}

TEST(QualityRules, OnlyTheDaemonHasCostlyReports) {
  QualityRequest r;
  QualityPlan plain = plan_quality(r, daemon_quality_policy(24));
  r.rrc = true;
  QualityPlan rrc = plan_quality(r, daemon_quality_policy(24));
  EXPECT_FALSE(quality_is_costly(64, plain, command_line_quality_policy()));
  EXPECT_FALSE(quality_is_costly(64, rrc, command_line_quality_policy()));
  EXPECT_FALSE(quality_is_costly(23, plain, daemon_quality_policy(24)));
  EXPECT_TRUE(quality_is_costly(24, plain, daemon_quality_policy(24)));
  EXPECT_TRUE(quality_is_costly(16, rrc, daemon_quality_policy(24)));  // minutes at any width
}

}  // namespace
}  // namespace mixforge::app
