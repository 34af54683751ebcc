#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "evolver/search/acceptance.hpp"
#include "evolver/search/pool.hpp"
#include "evolver/search/rng.hpp"
#include "evolver/search/tournament.hpp"
#include "mixer/program.hpp"

using namespace mixforge;
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

// ---- The tournament the run holds (hold_tournament) -----------------------------------

namespace {

// Distinct one-step programs (x ^= k) with the given scores.
Pool pool_of(const std::vector<Estimate>& estimates) {
  Pool pool;
  std::uint64_t k = 1;
  for (const Estimate& e : estimates) {
    const mixer::Program p(32, {mixer::Step{mixer::StepKind::xor_const, k++ * 0x9e3779b9u}});
    EXPECT_TRUE(pool.insert(Member{p, p.hash(), e, 0}));
  }
  return pool;
}

Estimate exact(double chi2) { return {chi2, 0, std::uint64_t{1} << 32, true}; }

}  // namespace

// The removal frequencies of real tournaments between a winner and a loser whose
// log-quality differs by d follow P = 1 / (1 + exp(-d / T)), the formula written out
// here: within 5 standard errors per cell (a correct tournament fails with probability
// < 1e-5) and a chi-square over all cells below the 99.999 % quantile. Both members are
// checked to take the roles their scores give them, in both slot orders.
TEST(Tournament, RemovesTheWorseWithTheLogisticProbability) {
  Rng rng(2024, 3);
  const double temperature = 0.25;
  const double winner_chi2 = 1e-3;
  const int trials = 100000;
  double chi2 = 0;
  int cells = 0;
  for (double d : {0.05, 0.1, 0.2, 0.35, 0.5, 0.75, 1.0, 1.5}) {
    const double loser_chi2 = winner_chi2 * std::exp(d);
    const double p = 1 / (1 + std::exp(-d / temperature));
    for (bool loser_first : {false, true}) {
      const Pool pool = loser_first ? pool_of({exact(loser_chi2), exact(winner_chi2)})
                                    : pool_of({exact(winner_chi2), exact(loser_chi2)});
      const std::size_t loser_slot = loser_first ? 0 : 1;
      int removed = 0;
      for (int i = 0; i < trials; ++i) {
        const TournamentOutcome t = hold_tournament(pool, temperature, 32, rng);
        ASSERT_EQ(t.loser, loser_slot);
        ASSERT_EQ(t.winner, 1 - loser_slot);
        removed += t.remove;
      }
      const double phat = double(removed) / trials;
      const double se = std::sqrt(p * (1 - p) / trials);
      EXPECT_NEAR(phat, p, 5 * se) << "d = " << d;
      chi2 += (phat - p) * (phat - p) / (se * se);
      ++cells;
    }
  }
  EXPECT_LT(chi2, 44.0) << cells << " cells";  // chi2(16) 99.999 % quantile is about 43.0
}

// Equal scores: a coin flip, and each member loses half of the tournaments.
TEST(Tournament, EqualScoresRemoveHalfTheTime) {
  Rng rng(7, 1);
  const Pool pool = pool_of({exact(2e-3), exact(2e-3)});
  const int trials = 100000;
  int removed = 0, first_lost = 0;
  for (int i = 0; i < trials; ++i) {
    const TournamentOutcome t = hold_tournament(pool, 0.25, 32, rng);
    removed += t.remove;
    first_lost += t.loser == 0;
  }
  const double se = std::sqrt(0.25 / trials);
  EXPECT_NEAR(double(removed) / trials, 0.5, 5 * se);
  EXPECT_NEAR(double(first_lost) / trials, 0.5, 5 * se);
}

// Temperature 0: a worse loser is always removed.
TEST(Tournament, ZeroTemperatureAlwaysRemovesAWorseLoser) {
  Rng rng(1, 1);
  const Pool pool = pool_of({exact(3e-3), exact(1e-3), exact(2e-3)});
  for (int i = 0; i < 10000; ++i) {
    const TournamentOutcome t = hold_tournament(pool, 0.0, 32, rng);
    EXPECT_TRUE(t.remove);
    EXPECT_LT(pool[t.winner].estimate.chi2, pool[t.loser].estimate.chi2);
  }
}

// A sampled estimate lost in its noise ranks at its standard error: it loses to an exact
// score between its chi2 and its stderr.
TEST(Tournament, SampledEstimatesCompareByRank) {
  Rng rng(5, 5);
  const Pool pool = pool_of({{1e-4, 5e-3, 4096, false}, exact(1e-3)});
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(hold_tournament(pool, 0.25, 32, rng).loser, 0u);
}

// Pairs are two distinct members drawn uniformly: every ordered pair equally often.
TEST(Tournament, DrawsDistinctPairsUniformly) {
  Rng rng(11, 2);
  std::vector<Estimate> es;
  for (int i = 0; i < 6; ++i) es.push_back(exact(1e-3 * (i + 1)));
  const Pool pool = pool_of(es);
  const int trials = 150000;
  std::vector<int> pairs(36);
  for (int i = 0; i < trials; ++i) {
    const TournamentOutcome t = hold_tournament(pool, 0.25, 32, rng);
    ASSERT_NE(t.winner, t.loser);
    ASSERT_LT(t.winner, t.loser);  // scores rise with the slot here: the lower slot wins
    ++pairs[t.winner * 6 + t.loser];
  }
  const double expected = trials / 15.0;  // unordered pairs of 6
  double chi2 = 0;
  for (int a = 0; a < 6; ++a)
    for (int b = a + 1; b < 6; ++b) chi2 += (pairs[a * 6 + b] - expected) * (pairs[a * 6 + b] - expected) / expected;
  EXPECT_LT(chi2, 40.0);  // chi2(14) 99.999 % quantile is about 39.3
}

TEST(Tournament, RefusesAPoolOfFewerThanTwo) {
  Rng rng(1, 1);
  EXPECT_THROW(hold_tournament(pool_of({}), 0.25, 32, rng), std::logic_error);
  EXPECT_THROW(hold_tournament(pool_of({exact(1e-3)}), 0.25, 32, rng), std::logic_error);
}
