// Quality: an 8-bit, 5-step run reaches 0.10595703125 (the exact optimum of the
// write-up's xsr-mul-xsr-mul-xsr structure) within 60 s, with default settings.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <unistd.h>

#include "evolver/run_manager.hpp"

using namespace mixforge::evolver;

TEST(Quality, EightBitFiveStepsReachesTheWriteUpOptimum) {
  const double target = 0.10595703125;
  const auto dir = std::filesystem::temp_directory_path() / ("mixforge-optimum-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  RunManager::Options o;
  o.data_dir = dir;
  RunManager m(o);
  std::atomic<double> reached_at{-1};
  RunConfig c;
  c.width = 8;
  c.max_steps = 5;
  c.budget.seconds = 60;
  const auto t0 = std::chrono::steady_clock::now();
  m.subscribe("", [&](const RunEvent& e) {
    if (e.type == RunEvent::Type::new_best && e.best && e.best->exact && e.best->chi2 <= target + 1e-12 &&
        reached_at.load() < 0)
      reached_at = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  });
  const std::string id = m.create(c);
  while (!m.wait(id, 0.2))
    if (reached_at.load() >= 0) m.stop(id);
  const auto best = m.best(id);
  ASSERT_TRUE(best);
  std::printf("best chi2 %.11g after %.2f s (target reached at %.2f s)\n", best->chi2,
              m.get(id).counters.elapsed_s, reached_at.load());
  EXPECT_LE(best->chi2, target + 1e-12) << best->text;
  std::filesystem::remove_all(dir);
}
