// Migration between islands (Run::emigrants / Run::immigrate), in one process: what MPI
// islands exchange, without MPI.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "avalanche/evaluator.hpp"
#include "evolver/run/run.hpp"
#include "mixer/text_form.hpp"

using namespace mixforge;
using namespace mixforge::evolver;

namespace {

RunConfig island_config(std::uint64_t seed, std::uint64_t tournaments) {
  RunConfig c;
  c.width = 8;
  c.max_steps = 5;
  c.pool_size = 60;
  c.seed = seed;
  c.threads = 1;
  c.precision.leader_interval = 500;
  c.budget.tournaments = tournaments;
  return c;
}

std::unique_ptr<Run> finished_island(const avalanche::Evaluator& ev, std::uint64_t seed, std::uint64_t tournaments) {
  auto run = std::make_unique<Run>("island", island_config(seed, tournaments), ev);
  run->start(island_config(seed, tournaments).budget);
  run->wait();
  EXPECT_EQ(run->error(), "");
  return run;
}

TEST(Migration, EmigrantsAreTheBestMembersBestFirst) {
  avalanche::Evaluator ev(nullptr);
  auto run = finished_island(ev, 1, 400);
  const std::vector<mixer::Program> out = run->emigrants(5);
  ASSERT_EQ(out.size(), 5u);
  const Checkpoint c = run->snapshot();
  std::vector<double> ranks;
  for (const Member& m : c.pool) ranks.push_back(m.estimate.rank());
  std::sort(ranks.begin(), ranks.end());
  for (std::size_t k = 0; k < out.size(); ++k) {
    const auto it = std::find_if(c.pool.begin(), c.pool.end(), [&](const Member& m) { return m.program == out[k]; });
    ASSERT_NE(it, c.pool.end());
    EXPECT_EQ(it->estimate.rank(), ranks[k]) << k;
  }
}

TEST(Migration, ABetterImmigrantEntersAndAWorseOneDoesNot) {
  avalanche::Evaluator ev(nullptr);
  auto strong = finished_island(ev, 2, 3000);
  auto weak = finished_island(ev, 3, 10);  // barely evolved: its pool is mostly random
  const mixer::Program best = strong->emigrants(1).front();
  const double best_chi2 = ev.exact(best).chi2;
  ASSERT_LT(best_chi2, weak->best()->estimate.chi2) << "the strong island must be ahead for this test";
  const std::size_t before = weak->snapshot().pool.size();
  // Offered often enough, the logistic acceptance takes it (each offer meets a random member).
  std::size_t accepted = 0;
  for (int i = 0; i < 20 && accepted == 0; ++i) accepted += weak->immigrate({best});
  EXPECT_EQ(accepted, 1u);
  const Checkpoint after = weak->snapshot();
  EXPECT_EQ(after.pool.size(), before) << "an immigrant replaces a member";
  EXPECT_TRUE(std::any_of(after.pool.begin(), after.pool.end(), [&](const Member& m) { return m.program == best; }));
  EXPECT_EQ(weak->best()->program, best) << "the exact-mode best follows the immigrant";
  // Offered again it is a duplicate; a program of another width is skipped.
  EXPECT_EQ(weak->immigrate({best}), 0u);
  EXPECT_EQ(weak->immigrate({mixer::parse_program("x ^= x >> 3; x *= 0x2b", {.width = 9})}), 0u);
  // The worst possible program (the identity-like xor) never replaces anyone.
  const mixer::Program poor = mixer::parse_program("x ^= 0x5", {.width = 8});
  for (int i = 0; i < 20; ++i) EXPECT_EQ(strong->immigrate({poor}), 0u);
}

}  // namespace
