#include <gtest/gtest.h>

#include "avalanche/evaluator.hpp"
#include "avalanche/count/reference_counts.hpp"
#include "mixer/text_form.hpp"

using namespace mixforge;

namespace {
const mixer::Program good =
    mixer::parse_program("x ^= x >> 8; x *= 0x88b5; x ^= x >> 7; x *= 0xdb2d; x ^= x >> 9", {.width = 16});
const mixer::Program bad = mixer::parse_program("x *= 0x88b5; x ^= x >> 3", {.width = 16});
}  // namespace

TEST(Staged, RejectsABadProgramAtTheFirstStage) {
  const avalanche::Evaluator ev(nullptr);
  avalanche::StagedOptions o;
  o.first_samples = 1 << 10;
  o.max_samples = 1 << 16;
  o.threshold = 0.05;
  const avalanche::StagedScore s = ev.staged(bad, o);
  EXPECT_TRUE(s.rejected);
  EXPECT_EQ(s.stage, 0);
  EXPECT_EQ(s.stages, 4);  // 2^10, 2^12, 2^14, 2^16
  EXPECT_EQ(s.score.samples, 1u << 10);
}

TEST(Staged, KeepsAGoodProgramToTheLastStageAndExtendsOneStream) {
  const avalanche::Evaluator ev(nullptr);
  avalanche::StagedOptions o;
  o.seed = 99;
  o.first_samples = 1 << 10;
  o.max_samples = 1 << 16;
  o.threshold = 0.05;  // good's exact chi2 is 0.0094
  const avalanche::StagedScore s = ev.staged(good, o);
  EXPECT_FALSE(s.rejected);
  EXPECT_EQ(s.stage, 3);
  // The last stage equals one sampled score of the whole stream (stages reuse samples).
  const avalanche::Score whole = ev.sampled(good, 1 << 16, 99);
  EXPECT_EQ(s.score.chi2, whole.chi2);
  EXPECT_EQ(s.score.samples, 1u << 16);
}

TEST(Staged, NoThresholdRunsEveryStage) {
  const avalanche::Evaluator ev(nullptr);
  avalanche::StagedOptions o;
  o.first_samples = 1000;
  o.max_samples = 5000;
  o.growth = 2;
  const avalanche::StagedScore s = ev.staged(bad, o);
  EXPECT_FALSE(s.rejected);
  EXPECT_EQ(s.stages, 4);  // 1000, 2000, 4000, 5000
  EXPECT_EQ(s.score.samples, 5000u);
}

TEST(Staged, BadOptionsAreRefused) {
  const avalanche::Evaluator ev(nullptr);
  avalanche::StagedOptions o;
  o.first_samples = 0;
  EXPECT_THROW(ev.staged(good, o), std::invalid_argument);
  o = {};
  o.confidence = 1.5;
  EXPECT_THROW(ev.staged(good, o), std::invalid_argument);
}

TEST(Staged, ExactRefusesWidthsOver32) {
  const avalanche::Evaluator ev(nullptr);
  EXPECT_THROW(ev.exact(mixer::parse_program("x *= 3", {.width = 33})), std::invalid_argument);
}
