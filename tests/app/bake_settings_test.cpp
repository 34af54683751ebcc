// app/bake_settings: the bake's numeric rules, the model's limits and a daemon's caps.
#include <gtest/gtest.h>

#include "app/bake_settings.hpp"
#include "app/request_error.hpp"

namespace mixforge::app {
namespace {

std::string refusal(const BakeSettings& s, const BakePolicy& p = {}) {
  try {
    check_bake_settings(s, p);
  } catch (const RequestError& e) {
    return e.field() + " " + e.code();
  }
  return "(accepted)";
}

TEST(BakeRules, TheModelsLimits) {
  EXPECT_EQ(refusal({0, 2, {}}), "spp out-of-range");
  EXPECT_EQ(refusal({(1u << 20) + 1, 2, {}}), "spp out-of-range");
  EXPECT_EQ(refusal({1u << 20, 64, {}}), "(accepted)");
  EXPECT_EQ(refusal({16, 65, {}}), "bounces out-of-range");
}

TEST(BakeRules, ATexelMustBeAPositiveNormalFloat) {
  // 1e-300 rounds to 0 as a float, which means "the default": refused, not silently
  // replaced (the daemon accepted it before the rule was shared).
  EXPECT_EQ(refusal({16, 2, 1e-300}), "texel out-of-range");
  EXPECT_EQ(refusal({16, 2, 1e-45}), "texel out-of-range");
  EXPECT_EQ(refusal({16, 2, 1e39}), "texel out-of-range");
  EXPECT_EQ(refusal({16, 2, 0.0}), "texel out-of-range");
  EXPECT_EQ(refusal({16, 2, -1.0}), "texel out-of-range");
  EXPECT_EQ(check_bake_settings({16, 2, 0.25}).texel, 0.25f);
  EXPECT_EQ(check_bake_settings({16, 2, std::nullopt}).texel, 0.0f);
}

TEST(BakeRules, ADaemonsCapsAreLimitsExceeded) {
  const BakePolicy daemon{65536, 16};
  EXPECT_EQ(refusal({65537, 2, {}}, daemon), "spp limit-exceeded");
  EXPECT_EQ(refusal({16, 17, {}}, daemon), "bounces limit-exceeded");
  EXPECT_EQ(refusal({16, 65, {}}, daemon), "bounces out-of-range");
}

}  // namespace
}  // namespace mixforge::app
