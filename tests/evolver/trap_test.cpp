// Quality: a 32-bit, 5-step run with seed 201 on one worker locks its whole pool into the
// shape mul, xsr, mul, xsr, mul, whose best is near 0.2: every single mutation of it scores
// worse, so tournaments alone never leave it (bench/results/islands/s600_seed201: 0.204
// after 10 minutes). Trap restarts (on by default: a pool that stops halving its best while
// it is still above the noise floor of its first sample count starts afresh) get out. Budgets
// and the restart window are in tournaments and the runs have one worker, so both pools
// are the same on any machine; the checks look at the pool, not at the run's best.
#include <gtest/gtest.h>

#include <cstdio>
#include <memory>

#include "avalanche/evaluator.hpp"
#include "evolver/run/run.hpp"
#include "mixer/text_form.hpp"

using namespace mixforge;
using namespace mixforge::evolver;

namespace {
const std::vector<mixer::StepKind> trap = {mixer::StepKind::mul_const, mixer::StepKind::xorshift_right,
                                           mixer::StepKind::mul_const, mixer::StepKind::xorshift_right,
                                           mixer::StepKind::mul_const};

std::vector<mixer::StepKind> kinds_of(const mixer::Program& p) {
  std::vector<mixer::StepKind> out;
  for (const mixer::Step& s : p.steps()) out.push_back(s.kind);
  return out;
}

// The pool after `tournaments` tournaments (one worker: the same pool on any machine).
// Scored as the daemon scores: the interpreter takes the tasks too small for a kernel.
Pool pool_after(RunConfig c, std::uint64_t tournaments, std::uint64_t* restarts = nullptr) {
  static const std::unique_ptr<avalanche::Evaluator> ev = avalanche::Evaluator::with_own_engine();
  static const avalanche::Evaluator interpreter(nullptr);
  c.budget.tournaments = tournaments;
  // No background ranker: it never changes the pool (evolver/run/run.cpp), and its exact scores
  // took the other core for as long as the test ran (71 s alone, 120 s of CPU).
  c.precision.exact_leaders = false;
  evolver::Run run("trap", c, *ev, std::nullopt, &interpreter);
  run.start(c.budget);
  run.wait();
  EXPECT_EQ(run.error(), "");
  const Checkpoint k = run.snapshot();
  if (restarts) *restarts = k.counters.restarts;
  Pool p;
  for (const Member& m : k.pool) p.insert(m);
  return p;
}

RunConfig seed201() {
  RunConfig c;
  c.width = 32;
  c.max_steps = 5;
  c.threads = 1;
  c.seed = 201;
  return c;
}
}  // namespace

TEST(Quality, SeedTwoHundredOneLocksOnePoolIntoAPoorShape) {
  RunConfig c = seed201();
  c.restart.trap_tournaments = 0;
  const Pool before = pool_after(c, 2000);
  const Member& best = before[before.best()];
  std::size_t trapped = 0;
  for (std::size_t i = 0; i < before.size(); ++i) trapped += kinds_of(before[i].program) == trap;
  std::printf("without restarts: %zu of %zu members have the trap's shape; pool best %.4g: %s\n", trapped,
              before.size(), best.estimate.rank(), mixer::format_program(best.program).c_str());
  EXPECT_EQ(kinds_of(best.program), trap);
  EXPECT_GT(best.estimate.rank(), 0.1);
  // Spreading: 69 of 1000 members at 2000 tournaments, 281 at 3000, 964 after a minute.
  EXPECT_GT(trapped, before.size() / 20);
}

TEST(Quality, TrapRestartsLeaveTheTrap) {
  RunConfig c = seed201();
  // The default is 4000; half keeps the test short (the restart comes at 4000 tournaments
  // instead of 6000) and changes nothing else. The other restart fields keep their
  // defaults: trap restarts need none of them.
  c.restart.trap_tournaments = 2000;
  ASSERT_FALSE(c.restart.enabled());
  std::uint64_t restarts = 0;
  const Pool after = pool_after(c, 7000, &restarts);
  const Member& best = after[after.best()];
  std::printf("with trap restarts: %llu restarts; pool best %.4g: %s\n", static_cast<unsigned long long>(restarts),
              best.estimate.rank(), mixer::format_program(best.program).c_str());
  EXPECT_GE(restarts, 1u);
  EXPECT_NE(kinds_of(best.program), trap);
  EXPECT_LT(best.estimate.rank(), 0.02);
}
