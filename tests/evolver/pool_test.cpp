#include <gtest/gtest.h>

#include <set>

#include "evolver/search/pool.hpp"
#include "evolver/search/random_program.hpp"

using namespace mixforge;
using namespace mixforge::evolver;

namespace {
Member member(const mixer::Program& p, double chi2) { return Member{p, p.hash(), {chi2, 0, 256, true}, 0}; }
}  // namespace

TEST(Pool, RejectsDuplicatesAndKeepsIndexConsistent) {
  Rng rng(1, 0);
  ProgramShape shape{8, 1, 3, {mixer::StepKind::xorshift_right, mixer::StepKind::mul_const}, {}};
  Pool pool;
  std::set<std::uint64_t> ids;
  for (int i = 0; i < 3000; ++i) {
    const mixer::Program p = random_program(shape, rng);
    const bool fresh = ids.insert(p.hash()).second;
    EXPECT_EQ(pool.insert(member(p, rng.uniform())), fresh);
    if (i % 3 == 0 && pool.size() > 1) {
      const std::size_t k = rng.below(pool.size());
      ids.erase(pool[k].hash);
      pool.remove_at(k);
    }
  }
  ASSERT_EQ(pool.size(), ids.size());
  std::set<std::uint64_t> in_pool;
  for (std::size_t i = 0; i < pool.size(); ++i) {
    EXPECT_TRUE(in_pool.insert(pool[i].hash).second);
    EXPECT_EQ(pool[i].hash, pool[i].program.hash());
    EXPECT_EQ(pool.find(pool[i].hash), i);
  }
}

TEST(Pool, TopAndBestRankByEstimate) {
  Pool pool;
  pool.insert(member(mixer::Program(8, {{mixer::StepKind::mul_const, 3}}), 0.5));
  pool.insert(member(mixer::Program(8, {{mixer::StepKind::mul_const, 5}}), 0.1));
  pool.insert(member(mixer::Program(8, {{mixer::StepKind::mul_const, 7}}), 0.3));
  // A sampled estimate lost in its noise ranks by its standard error.
  pool.insert(Member{mixer::Program(8, {{mixer::StepKind::mul_const, 9}}),
                     mixer::Program(8, {{mixer::StepKind::mul_const, 9}}).hash(),
                     {-0.2, 0.2, 64, false},
                     0});
  EXPECT_EQ(pool[pool.best()].estimate.chi2, 0.1);
  const auto top = pool.top(3);
  ASSERT_EQ(top.size(), 3u);
  EXPECT_EQ(pool[top[0]].estimate.chi2, 0.1);
  EXPECT_EQ(pool[top[1]].estimate.rank(), 0.2);
  EXPECT_EQ(pool[top[2]].estimate.chi2, 0.3);
}
