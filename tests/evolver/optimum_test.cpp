// Quality: an 8-bit, 5-step run with default search settings reaches 0.10595703125 (the
// exact optimum of the write-up's xsr-mul-xsr-mul-xsr structure). The budget is counted
// in tournaments and the run uses one worker thread with fixed seeds, so the outcome is
// the same on a fast or a slow (or busy) machine: no wall clock anywhere.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <unistd.h>

#include "support/process.hpp"
#include "evolver/manager/run_manager.hpp"

using namespace mixforge::evolver;

namespace {
constexpr double target = 0.10595703125;
// Tournaments allowed per seed. Measured (the run is stopped within 0.2 s of reaching
// the optimum, so these are upper bounds): seed 1 57671, seed 2 53031; seed 3 needs about
// 375000 and is not used. The budget leaves a margin of more than 2.5x.
constexpr std::uint64_t budget = 150000;
}  // namespace

TEST(Quality, EightBitFiveStepsReachesTheWriteUpOptimum) {
  const mixforge::test::TempDir scratch("optimum");
  const auto dir = scratch / "data";  // the manager creates it
  RunManager::Options o;
  o.data_dir = dir;
  RunManager m(o);
  for (std::uint64_t seed : {1, 2}) {
    RunConfig c;
    c.width = 8;
    c.max_steps = 5;
    c.threads = 1;
    c.seed = seed;
    c.budget.tournaments = budget;
    std::atomic<std::uint64_t> reached_at{0};
    const auto sub = m.subscribe("", [&](const RunEvent& e) {
      if (e.type == RunEvent::Type::new_best && e.best && e.best->exact && e.best->chi2 <= target + 1e-12 &&
          reached_at.load() == 0)
        reached_at = e.progress.counters.tournaments + 1;
    });
    const std::string id = m.create(c);
    while (!m.wait(id, 0.2))
      if (reached_at.load() != 0) {
        try {
          m.stop(id);
        } catch (const RunStateError&) {  // finished meanwhile
        }
      }
    m.unsubscribe(sub);
    const auto best = m.best(id);
    ASSERT_TRUE(best);
    std::printf("seed %llu: best chi2 %.11g after %llu tournaments (budget %llu)\n",
                static_cast<unsigned long long>(seed), best->chi2,
                static_cast<unsigned long long>(m.get(id).counters.tournaments),
                static_cast<unsigned long long>(budget));
    EXPECT_LE(best->chi2, target + 1e-12) << "seed " << seed << ": " << best->text;
  }
  std::filesystem::remove_all(dir);
}
