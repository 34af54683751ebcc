// Defects the chaos test found, each reproduced here without the daemon.
#include <gtest/gtest.h>

#include "avalanche/evaluator.hpp"
#include "evolver/run/run.hpp"

namespace mixforge::evolver {
namespace {

// Chaos seed 42 (a run created with {"pool_size": 2, "threads": 3}): the daemon died
// of SIGSEGV within a second. With more workers than pool members a worker reached a
// tournament while another worker's fill was still pending, with fewer than two
// members in the pool, and indexed past it (std::bad_alloc, SIGSEGV or garbage).
TEST(ChaosRegression, TinyPoolWithMoreWorkersThanMembers) {
  avalanche::Evaluator ev(nullptr);
  for (const auto& [pool, threads] : {std::pair<std::size_t, unsigned>{2, 2}, {2, 8}, {3, 4}}) {
    {
      RunConfig c;
      c.width = 16;  // slow enough scoring (interpreter, exact) to widen the race window
      c.max_steps = 4;
      c.pool_size = pool;
      c.threads = threads;
      c.seed = 1;
      c.budget.tournaments = 60;
      evolver::Run run("tiny", c, ev);
      run.start(c.budget);
      if (!run.wait(60)) {
        const Checkpoint cp = run.snapshot();
        run.request_stop();
        run.wait();
        FAIL() << "pool " << pool << ", " << threads << " threads: still running after 60 s with "
               << cp.counters.tournaments << " tournaments, pool of " << cp.pool.size();
      }
      EXPECT_EQ(run.error(), "") << "pool " << pool << ", " << threads << " threads";
      EXPECT_TRUE(run.budget_spent()) << "pool " << pool << ", " << threads << " threads";
      EXPECT_LE(run.snapshot().pool.size(), pool);
    }
  }
}

}  // namespace
}  // namespace mixforge::evolver
