#include <gtest/gtest.h>

#include <cmath>

#include "evolver/acceptance.hpp"
#include "evolver/rng.hpp"

using namespace mixforge::evolver;

TEST(Acceptance, FormulaValues) {
  // P = 1 / (1 + exp(-ln(loser / winner) / T))
  EXPECT_DOUBLE_EQ(removal_probability(0.2, 0.2, 0.25, 8), 0.5);
  EXPECT_NEAR(removal_probability(0.4, 0.2, 0.25, 8), 1 / (1 + std::pow(2.0, -4.0)), 1e-12);
  EXPECT_NEAR(removal_probability(1e-3, 1e-4, 1.0, 32), 1 / (1 + 0.1), 1e-12);
  // Larger temperature: closer to a coin flip.
  EXPECT_LT(removal_probability(0.4, 0.2, 2.0, 8), removal_probability(0.4, 0.2, 0.25, 8));
  // Estimates at or below zero are clamped to the floor: no NaN, equal to "both at floor".
  EXPECT_DOUBLE_EQ(removal_probability(-1e-6, -2e-6, 0.25, 32), 0.5);
  EXPECT_GT(removal_probability(1e-6, -2e-6, 0.25, 32), 0.5);
  // T = 0: always remove a worse loser.
  EXPECT_EQ(removal_probability(0.3, 0.2, 0.0, 8), 1.0);
}

// The decision the run makes must follow the formula: measured removal frequencies at
// several quality differences agree with P within 5 standard errors each (a correct
// implementation fails this with probability < 1e-5), and a chi-square over all of them
// stays below the 99.999 % quantile.
TEST(Acceptance, MeasuredRemovalFrequenciesFollowTheFormula) {
  Rng rng(2024, 3);
  const double temperature = 0.25;
  const double winner = 1e-3;
  const int trials = 100000;
  double chi2 = 0;
  int cells = 0;
  for (double d : {0.0, 0.05, 0.1, 0.2, 0.35, 0.5, 0.75, 1.0, 1.5}) {
    const double loser = winner * std::exp(d);
    const double p = removal_probability(loser, winner, temperature, 32);
    int removed = 0;
    for (int i = 0; i < trials; ++i) removed += remove_loser(loser, winner, temperature, 32, rng);
    const double phat = double(removed) / trials;
    const double se = std::sqrt(p * (1 - p) / trials);
    EXPECT_NEAR(phat, p, 5 * se + 1e-12) << "d = " << d;
    chi2 += (phat - p) * (phat - p) / (se * se);
    ++cells;
  }
  EXPECT_LT(chi2, 41.0) << cells << " cells";  // chi2(9) 99.999 % quantile is about 39.3
}
