// The memetic operators (issue 39): crossover between programs of one shape, the exact
// score cache, and local search inside the tournament loop of an exactly scored run.
#include <gtest/gtest.h>

#include <set>

#include "avalanche/evaluator.hpp"
#include "avalanche/count/reference_counts.hpp"
#include "avalanche/stats/chi_square.hpp"
#include "evolver/run/run.hpp"
#include "evolver/search/crossover.hpp"
#include "evolver/search/local_search.hpp"
#include "evolver/search/score_cache.hpp"
#include "mixer/text_form.hpp"
#include "small_configs.hpp"

using namespace mixforge;
using namespace mixforge::evolver;

namespace {

const mixer::Program a = mixer::parse_program("x ^= x >> 8; x *= 0xa3d3; x ^= x >> 7; x *= 0x4b2d; x ^= x >> 9;", {16});
const mixer::Program b = mixer::parse_program("x ^= x >> 7; x *= 0x774b; x ^= x >> 7; x *= 0xe34b; x ^= x >> 8;", {16});

TEST(Crossover, ChildrenTakeEachOperandFromOneParentAndDifferFromBoth) {
  Rng rng(5, 0);
  std::set<std::uint64_t> seen;
  for (int k = 0; k < 200; ++k) {
    const std::optional<mixer::Program> c = crossover(a, b, rng);
    ASSERT_TRUE(c);
    ASSERT_TRUE(same_shape(*c, a));
    EXPECT_NE(c->hash(), a.hash());
    EXPECT_NE(c->hash(), b.hash());
    for (std::size_t i = 0; i < c->size(); ++i) {
      const std::uint64_t v = c->steps()[i].operand;
      EXPECT_TRUE(v == a.steps()[i].operand || v == b.steps()[i].operand) << "position " << i;
    }
    seen.insert(c->hash());
  }
  // Positions 0, 1, 3, 4 differ (position 2 is 7 in both): 2^4 - 2 children exist.
  EXPECT_EQ(seen.size(), 14u);
}

TEST(Crossover, NeedsTheSameShapeAndTwoDifferences) {
  Rng rng(6, 0);
  const mixer::Program other_kinds =
      mixer::parse_program("x ^= x >> 8; x *= 0xa3d3; x ^= x << 7; x *= 0x4b2d; x ^= x >> 9;", {16});
  EXPECT_FALSE(same_shape(a, other_kinds));
  EXPECT_FALSE(crossover(a, other_kinds, rng));
  EXPECT_FALSE(crossover(a, mixer::parse_program("x ^= x >> 8; x *= 0xa3d3; x ^= x >> 7; x *= 0x4b2d;", {16}), rng));
  EXPECT_FALSE(crossover(a, mixer::Program(32, a.steps()), rng));  // another width
  const mixer::Program one_apart =
      mixer::parse_program("x ^= x >> 8; x *= 0xa3d3; x ^= x >> 7; x *= 0x4b2d; x ^= x >> 10;", {16});
  EXPECT_FALSE(crossover(a, one_apart, rng));  // every child would be a parent
}

TEST(ScoreCache, KeepsWhatWasUsedRecentlyWithinItsCapacity) {
  ScoreCache cache(4);  // two generations of 2
  cache.put(1, 0.1);
  cache.put(2, 0.2);
  EXPECT_EQ(cache.find(1), 0.1);
  cache.put(3, 0.3);  // the young generation was full: 1, 2 become old
  EXPECT_EQ(cache.find(2), 0.2);  // found in the old one, made young again
  cache.put(4, 0.4);
  cache.put(5, 0.5);
  EXPECT_LE(cache.size(), 4u);
  EXPECT_FALSE(cache.find(1));  // neither used nor put since two generations
  EXPECT_EQ(cache.find(5), 0.5);
  EXPECT_GT(cache.hits(), 0u);
  EXPECT_GT(cache.misses(), 0u);
  ScoreCache none(0);
  none.put(1, 0.1);
  EXPECT_FALSE(none.find(1));
}

RunConfig memetic_config(std::uint64_t tournaments) {
  RunConfig c = evolver_test::small_exact_config(tournaments);
  c.memetic.local_search_rate = 1;
  c.memetic.max_moves = 1000;
  c.memetic.crossover_rate = 0;
  c.memetic.species_rate = 0;
  return c;
}

Checkpoint run_to_end(const RunConfig& c, const avalanche::Evaluator& ev, std::optional<Checkpoint> from = std::nullopt,
                      std::optional<Budget> budget = std::nullopt) {
  evolver::Run run("memetic", c, ev, std::move(from));
  run.start(budget ? *budget : c.budget);
  run.wait();
  EXPECT_EQ(run.error(), "");
  return run.snapshot();
}

// With every child a local search's end point, the run's best has no better neighbour,
// checked with the reference loops (an independent computation of every neighbour's score).
TEST(MemeticRun, LocalSearchChildrenLeaveTheBestAtALocalOptimum) {
  const avalanche::Evaluator ev(nullptr);
  const Checkpoint c = run_to_end(memetic_config(3000), ev);
  ASSERT_TRUE(c.best);
  EXPECT_GT(c.counters.local_improvements, 0u);
  EXPECT_GT(c.counters.local_neighbours, c.counters.local_improvements);
  const double best = avalanche::score(avalanche::reference_counts_exact(c.best->program)).chi2;
  EXPECT_DOUBLE_EQ(best, c.best->estimate.chi2);
  for (const mixer::Program& q : neighbours(c.best->program))
    EXPECT_GE(avalanche::score(avalanche::reference_counts_exact(q)).chi2, best) << mixer::format_program(q);
}

// The cache and the operators keep a one-thread run reproducible, and a resumed run
// (whose cache starts empty) goes on exactly as the uninterrupted one.
TEST(MemeticRun, ResumedRunsGoOnExactlyWithEveryOperator) {
  const avalanche::Evaluator ev(nullptr);
  RunConfig c = evolver_test::small_exact_config(1200);
  c.memetic.local_search_rate = 0.2;
  c.memetic.crossover_rate = 0.5;
  c.memetic.species_rate = 0.5;
  c.fresh_rate = 0.1;
  const Checkpoint whole = run_to_end(c, ev);
  const Checkpoint half = run_to_end(c, ev, std::nullopt, Budget{std::nullopt, 600});
  const Checkpoint resumed = run_to_end(c, ev, half, Budget{std::nullopt, 600});
  ASSERT_EQ(whole.pool.size(), resumed.pool.size());
  for (std::size_t i = 0; i < whole.pool.size(); ++i) ASSERT_EQ(whole.pool[i], resumed.pool[i]) << "slot " << i;
  EXPECT_EQ(whole.counters.scored, resumed.counters.scored);
  EXPECT_EQ(whole.counters.samples, resumed.counters.samples);
  EXPECT_EQ(whole.counters.local_neighbours, resumed.counters.local_neighbours);
  EXPECT_EQ(whole.best, resumed.best);
  EXPECT_GT(whole.counters.local_improvements, 0u);
}

}  // namespace

namespace {

std::size_t largest_shape(const Checkpoint& c) {
  std::size_t most = 0;
  for (const Member& m : c.pool) {
    std::size_t same = 0;
    for (const Member& o : c.pool) same += same_shape(m.program, o.program);
    most = std::max(most, same);
  }
  return most;
}

// One lineage took whole pools (a 16-bit run held mul, xsr, mul, xsr, mul at 0.17 for five
// minutes); with shape_share no shape holds more than its share of the pool.
TEST(MemeticRun, NoShapeHoldsMoreThanItsShareOfThePool) {
  const avalanche::Evaluator ev(nullptr);
  RunConfig c = evolver_test::small_exact_config(4000);
  c.memetic.shape_share = 1;
  const std::size_t free_most = largest_shape(run_to_end(c, ev));
  c.memetic.shape_share = 0.3;
  const Checkpoint capped = run_to_end(c, ev);
  EXPECT_GT(free_most, 30u);  // without the limit one shape takes more
  EXPECT_LE(largest_shape(capped), 30u);
  EXPECT_EQ(capped.pool.size(), 100u);
}

}  // namespace
