// The quality report as a whole: its single-bit avalanche part equals the reference scores
// of tests/data/mixers.json, its JSON form has every part, it is deterministic, and its
// cache key names the options and the version.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "avalanche/evaluator.hpp"
#include "avalanche/quality/quality.hpp"
#include "mixer/text_form.hpp"
#include "support/reference_functions.hpp"

using namespace mixforge;

namespace {
avalanche::QualityOptions quick_without_battery() {
  avalanche::QualityOptions o;
  o.size = avalanche::BatterySize::quick;
  o.battery = false;
  return o;
}
}  // namespace

TEST(QualityReport, ExactAvalancheEqualsTheReferenceScores) {
  const auto ev = avalanche::Evaluator::with_own_engine();
  int checked = 0;
  for (const auto& m : test::reference_mixers()) {
    if (m.width > 20) continue;  // the 32-bit ones: bench/quality.sh (exact at the standard size)
    const avalanche::QualityReport r =
        avalanche::assess_quality(*ev, mixer::parse_program(m.text, {.width = m.width}), quick_without_battery());
    EXPECT_TRUE(r.avalanche.exact) << m.name;
    EXPECT_NEAR(r.avalanche.chi2, m.chi2, 1e-9 * m.chi2) << m.name;
    EXPECT_NEAR(r.avalanche.bias, m.bias, 1e-9 * m.bias) << m.name;
    EXPECT_LE(r.worst_cell.deviation, 0.5);
    ++checked;
  }
  EXPECT_GE(checked, 8);
}

TEST(QualityReport, JsonHasEveryPartAndIsDeterministic) {
  const auto ev = avalanche::Evaluator::with_own_engine();
  const mixer::Program p =
      mixer::parse_program("x ^= x >> 8; x *= 0x88b5; x ^= x >> 7; x *= 0xdb2d; x ^= x >> 9;", {.width = 16});
  avalanche::QualityOptions o = quick_without_battery();
  o.battery = true;  // 16 bits: skipped for the width, with the reason
  nlohmann::json a = avalanche::to_json(avalanche::assess_quality(*ev, p, o)),
                 b = avalanche::to_json(avalanche::assess_quality(*ev, p, o));
  for (const char* k : {"version", "function", "options", "avalanche", "bit_independence", "higher_order",
                        "second_order_differential", "counter_battery", "seconds"})
    EXPECT_TRUE(a.contains(k)) << k;
  EXPECT_EQ(a["function"]["id"], p.id());
  EXPECT_EQ(a["counter_battery"]["status"], "skipped");
  EXPECT_NE(a["counter_battery"]["reason"].get<std::string>().find("width 16 < 32"), std::string::npos);
  EXPECT_TRUE(a["bit_independence"].contains("worst_pair"));
  // 16 bits at the quick size: the second-order differential counts every coset.
  const nlohmann::json& so = a["second_order_differential"];
  EXPECT_TRUE(so["exact"].get<bool>());
  EXPECT_EQ(so["samples_per_pair"], 1 << 14);
  EXPECT_EQ(so["single_bit_pairs"], 120);
  EXPECT_EQ(so["weight_two_pairs"], 16);
  EXPECT_EQ(so["bits"]["dof"], 136 * 16);
  EXPECT_TRUE(so.contains("worst_cell"));
  EXPECT_TRUE(so["weight_by_pair"].contains("worst_pair"));
  a.erase("seconds");
  b.erase("seconds");
  EXPECT_EQ(a, b);
  // Seeds beyond 2^53 - 1 are written as strings.
  o.seed = ~std::uint64_t{0};
  o.battery = false;
  EXPECT_EQ(avalanche::to_json(avalanche::assess_quality(*ev, p, o))["options"]["seed"], "18446744073709551615");
  // A 1-bit function: no pairs, no 2- or 3-bit flips.
  const nlohmann::json one =
      avalanche::to_json(avalanche::assess_quality(*ev, mixer::parse_program("x ^= 1;", {.width = 1}), o));
  EXPECT_FALSE(one["bit_independence"]["applicable"].get<bool>());
  EXPECT_FALSE(one["bit_independence"].contains("worst_pair"));
  EXPECT_TRUE(one["higher_order"].empty());
  EXPECT_FALSE(one["second_order_differential"]["applicable"].get<bool>());
  EXPECT_FALSE(one["second_order_differential"].contains("worst_cell"));
}

TEST(QualityReport, CacheKeyNamesOptionsAndVersionAndBadProgramsThrow) {
  avalanche::QualityOptions o;
  EXPECT_EQ(avalanche::quality_cache_key(o), "v2;standard;seed=1;battery=1");
  o.size = avalanche::BatterySize::quick;
  o.seed = 7;
  o.battery = false;
  EXPECT_EQ(avalanche::quality_cache_key(o), "v2;quick;seed=7;battery=0");
  const auto ev = avalanche::Evaluator::with_own_engine();
  EXPECT_THROW(avalanche::assess_quality(*ev, mixer::Program(32, {mixer::Step{mixer::StepKind::mul_const, 4}}), o),
               mixer::ProgramError);
  std::atomic<bool> cancel{true};
  // 28 bits at the quick size: sampled avalanche, then bit independence sees the flag.
  EXPECT_THROW(avalanche::assess_quality(*ev, mixer::parse_program("x *= 3;", {.width = 28}), o, &cancel),
               avalanche::EvaluationCancelled);
}
