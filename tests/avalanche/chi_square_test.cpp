#include <gtest/gtest.h>

#include <cmath>

#include "avalanche/stats/chi_square.hpp"
#include "avalanche/evaluator.hpp"
#include "avalanche/count/reference_counts.hpp"
#include "mixer/text_form.hpp"

using namespace mixforge;

TEST(ChiSquare, DefinitionOnAHandMadeMatrix) {
  avalanche::AvalancheCounts c = avalanche::AvalancheCounts::zero(2, true);
  c.trials = 4;
  c.flips = {2, 4, 0, 1};  // A = .5, 1, 0, .25
  // sum (A - .5)^2 / .5 = (0 + .25 + .25 + .0625) / .5
  EXPECT_DOUBLE_EQ(avalanche::chi_square(c), 1.125);
  EXPECT_DOUBLE_EQ(avalanche::bias_from_chi2(1.125, 2), 1000 * std::sqrt(2.25) / 2);
  const avalanche::Score s = avalanche::score(c);
  EXPECT_DOUBLE_EQ(s.chi2_corrected, s.chi2);
  EXPECT_EQ(s.chi2_stderr, 0);
}

TEST(ChiSquare, BiasMatchesHashProspectorUnitFor32Bits) {
  // chi2 = 512 (bias / 1000)^2 for n = 32 (engineering notes).
  EXPECT_NEAR(avalanche::bias_from_chi2(1.541831498e-05, 32), 0.17353355999581582, 1e-9 * 0.1735);
  EXPECT_NEAR(512 * std::pow(0.17353355999581582 / 1000, 2), 1.541831498e-05, 1e-15);
}

TEST(ChiSquare, NoiseCorrectionIsUnbiasedWithinItsStandardError) {
  // A 12-bit function: exact chi2 known; 200 sampled scores at N = 2^12 average to it
  // after subtracting n^2/2N, and the spread agrees with the reported standard error.
  const mixer::Program p =
      mixer::parse_program("x ^= x >> 6; x *= 0x9e5; x ^= x >> 5; x *= 0x3b7; x ^= x >> 6", {.width = 12});
  const avalanche::Evaluator ev(nullptr);
  const double exact = ev.exact(p).chi2;
  const int runs = 200;
  const std::uint64_t n = 1 << 12;
  double sum = 0, sum2 = 0, se = 0;
  for (int k = 0; k < runs; ++k) {
    const avalanche::Score s = ev.sampled(p, n, 1000 + k);
    sum += s.chi2_corrected;
    sum2 += s.chi2_corrected * s.chi2_corrected;
    se += s.chi2_stderr;
  }
  const double mean = sum / runs;
  const double sd = std::sqrt(sum2 / runs - mean * mean);
  se /= runs;
  const double raw_floor = avalanche::noise_floor(12, n);
  EXPECT_NEAR(mean, exact, 5 * sd / std::sqrt(runs)) << "floor " << raw_floor;
  EXPECT_GT(se, 0.5 * sd);  // the reported error is of the right size
  EXPECT_LT(se, 2.0 * sd);
}

TEST(ChiSquare, NormalQuantile) {
  EXPECT_NEAR(avalanche::normal_quantile(0.5), 0, 1e-9);
  EXPECT_NEAR(avalanche::normal_quantile(0.975), 1.959963985, 1e-6);
  EXPECT_NEAR(avalanche::normal_quantile(0.999), 3.090232306, 1e-6);
  EXPECT_NEAR(avalanche::normal_quantile(0.001), -3.090232306, 1e-6);
}
