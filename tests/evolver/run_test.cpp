#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <filesystem>
#include <set>
#include <thread>

#include "support/process.hpp"
#include "avalanche/evaluator.hpp"
#include "evolver/run/run.hpp"
#include "evolver/manager/run_manager.hpp"
#include "small_configs.hpp"

using namespace mixforge;
using namespace mixforge::evolver;
using mixforge::evolver_test::small_exact_config;
using mixforge::evolver_test::small_sampled_config;

namespace {

// The waits on a running run: conditions polled every 20 ms, not fixed sleeps (those failed
// under TSan on a busy machine). The deadline only keeps a broken build from hanging.
using Clock = std::chrono::steady_clock;
constexpr auto wait_bound = std::chrono::minutes(2);
template <class Done>
void poll_until(Done done, Clock::time_point give_up) {
  while (!done() && Clock::now() < give_up) std::this_thread::sleep_for(std::chrono::milliseconds(20));
}

struct Outcome {
  Checkpoint checkpoint;
  std::vector<HistoryPoint> history;
};

Outcome run_to_end(const RunConfig& c, const avalanche::Evaluator& ev, std::optional<Checkpoint> from = std::nullopt,
                   std::optional<Budget> budget = std::nullopt) {
  evolver::Run run("test", c, ev, std::move(from));
  run.start(budget ? *budget : c.budget);
  run.wait();
  EXPECT_EQ(run.error(), "");
  EXPECT_TRUE(run.budget_spent());
  return {run.snapshot(), run.drain_history()};
}

// Exact scores of leaders arrive from a background thread: the best (and the history's
// best column) is compared only where scoring is exact inline (small widths).
void expect_same(const Outcome& a, const Outcome& b, bool compare_best = true) {
  ASSERT_EQ(a.checkpoint.pool.size(), b.checkpoint.pool.size());
  for (std::size_t i = 0; i < a.checkpoint.pool.size(); ++i)
    ASSERT_EQ(a.checkpoint.pool[i], b.checkpoint.pool[i]) << "slot " << i;
  EXPECT_EQ(a.checkpoint.counters.tournaments, b.checkpoint.counters.tournaments);
  EXPECT_EQ(a.checkpoint.counters.scored, b.checkpoint.counters.scored);
  EXPECT_EQ(a.checkpoint.counters.early_rejects, b.checkpoint.counters.early_rejects);
  EXPECT_EQ(a.checkpoint.counters.samples, b.checkpoint.counters.samples);
  EXPECT_EQ(a.checkpoint.rngs, b.checkpoint.rngs);
  if (compare_best) {
    EXPECT_EQ(a.checkpoint.best, b.checkpoint.best);
  }
}

void expect_same_history(const std::vector<HistoryPoint>& a, const std::vector<HistoryPoint>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].tournaments, b[i].tournaments);
    EXPECT_EQ(a[i].scored, b[i].scored);
    EXPECT_EQ(a[i].best_chi2, b[i].best_chi2);
    EXPECT_EQ(a[i].best_exact, b[i].best_exact);
  }
}

// Without the best column (sampled runs): only the search's own points, in order.
std::vector<std::pair<std::uint64_t, std::uint64_t>> search_points(const std::vector<HistoryPoint>& h) {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> out;
  for (const auto& p : h)
    if (out.empty() || out.back() != std::make_pair(p.tournaments, p.scored)) out.emplace_back(p.tournaments, p.scored);
  return out;
}

}  // namespace

TEST(Run, ReproducibleWithSeedAndOneThreadExact) {
  avalanche::Evaluator ev(nullptr);
  const RunConfig c = small_exact_config(3000);
  const Outcome a = run_to_end(c, ev), b = run_to_end(c, ev);
  expect_same(a, b);
  expect_same_history(a.history, b.history);
  EXPECT_FALSE(a.history.empty());
  // A different seed gives a different search.
  RunConfig d = c;
  d.seed = 43;
  const Outcome other = run_to_end(d, ev);
  EXPECT_NE(other.checkpoint.rngs, a.checkpoint.rngs);
}

TEST(Run, ReproducibleWithSeedAndOneThreadSampled) {
  avalanche::Evaluator ev(nullptr);
  RunConfig c = small_sampled_config(1500);
  c.precision.exact_leaders = false;  // the background ranker is timing-dependent
  const Outcome a = run_to_end(c, ev), b = run_to_end(c, ev);
  expect_same(a, b);
  expect_same_history(a.history, b.history);
  EXPECT_GT(a.checkpoint.counters.early_rejects, 0u);
  // With exact ranking on, the search is still the same; only the best's arrival varies.
  c.precision.exact_leaders = true;
  const Outcome e1 = run_to_end(c, ev), e2 = run_to_end(c, ev);
  expect_same(e1, e2, false);
  EXPECT_EQ(search_points(e1.history).front(), search_points(e2.history).front());
  expect_same(a, e1, false);
}

TEST(Run, ResumingACheckpointContinuesExactly) {
  avalanche::Evaluator ev(nullptr);
  for (const RunConfig& c : {small_exact_config(2000), small_sampled_config(1200)}) {
    const Outcome whole = run_to_end(c, ev);
    Budget half;
    half.tournaments = *c.budget.tournaments / 2;
    const Outcome first = run_to_end(c, ev, std::nullopt, half);
    const Outcome second = run_to_end(c, ev, first.checkpoint, half);
    expect_same(whole, second, c.width <= c.precision.exact_max_width);
  }
}

TEST(Run, PoolHasNoDuplicatesAndValidPrograms) {
  avalanche::Evaluator ev(nullptr);
  RunConfig c = small_exact_config(4000);
  c.threads = 2;
  const Outcome o = run_to_end(c, ev);
  std::set<std::uint64_t> ids;
  for (const Member& m : o.checkpoint.pool) {
    EXPECT_TRUE(ids.insert(m.hash).second) << m.program.canonical();
    EXPECT_EQ(m.hash, m.program.hash());
    EXPECT_NO_THROW(mixer::validate(m.program, {c.max_steps}));
    EXPECT_EQ(m.estimate.chi2, ev.exact(m.program).chi2);  // exact mode scores are exact
  }
  EXPECT_EQ(o.checkpoint.pool.size(), c.pool_size);
}

TEST(Run, KindSequenceRunKeepsTheKinds) {
  avalanche::Evaluator ev(nullptr);
  RunConfig c = small_exact_config(1500);
  c.width = 7;
  c.kind_sequence = std::vector<mixer::StepKind>{mixer::StepKind::xorshift_right, mixer::StepKind::mul_const,
                                                 mixer::StepKind::xorshift_right, mixer::StepKind::mul_const,
                                                 mixer::StepKind::xorshift_right};
  const Outcome o = run_to_end(c, ev);
  for (const Member& m : o.checkpoint.pool) {
    ASSERT_EQ(m.program.size(), 5u);
    for (std::size_t k = 0; k < 5; ++k) EXPECT_EQ(m.program.steps()[k].kind, (*c.kind_sequence)[k]);
  }
}

TEST(Run, StopAndPauseAreCooperative) {
  avalanche::Evaluator ev(nullptr);
  RunConfig c = small_exact_config(0);
  c.budget = {};
  evolver::Run run("test", c, ev);
  run.start({});
  const auto give_up = Clock::now() + wait_bound;
  poll_until([&] { return run.counters().tournaments > 0; }, give_up);
  ASSERT_GT(run.counters().tournaments, 0u) << "no tournament in 2 minutes";
  run.pause();
  // A step in flight when pause() returns still commits: wait until the count holds.
  auto t1 = run.counters().tournaments;
  for (;;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    const auto t = run.counters().tournaments;
    if (t == t1 || Clock::now() > give_up) break;
    t1 = t;
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_EQ(run.counters().tournaments, t1);  // paused: nothing moves
  run.unpause();
  poll_until([&] { return run.counters().tournaments != t1; }, give_up);
  EXPECT_GT(run.counters().tournaments, t1);
  run.request_stop();
  EXPECT_TRUE(run.wait(10.0));
  EXPECT_FALSE(run.budget_spent());
}

// ---- The run manager (store-backed) -------------------------------------------------

TEST(RunManager, CreateWaitQueryResume) {
  const mixforge::test::TempDir scratch("evolver-manager");
  const auto dir = scratch / "data";  // the manager creates it
  RunManager::Options o;
  o.data_dir = dir;
  o.interpreter_only = true;
  o.progress_interval_s = 0.05;
  o.checkpoint_interval_s = 0.2;
  RunManager m(o);
  std::atomic<int> progress{0}, new_best{0}, state{0};
  const auto sub = m.subscribe("", [&](const RunEvent& e) {
    if (e.type == RunEvent::Type::progress) ++progress;
    if (e.type == RunEvent::Type::new_best) {
      ++new_best;
      EXPECT_TRUE(e.best && e.best->exact);
    }
    if (e.type == RunEvent::Type::state) ++state;
  });
  RunConfig c = small_exact_config(4000);
  const std::string id = m.create(c);
  EXPECT_TRUE(m.wait(id));
  const RunSummary s = m.get(id);
  EXPECT_EQ(s.state, RunState::finished);
  EXPECT_GE(s.counters.tournaments, 4000u);
  ASSERT_TRUE(s.best);
  EXPECT_TRUE(s.best->exact);
  EXPECT_GT(new_best.load(), 0);
  EXPECT_GE(state.load(), 2);  // running, finished
  m.unsubscribe(sub);

  // Pool queries page, order and filter.
  PoolQuery q;
  q.limit = 10;
  const PoolPage p1 = m.pool(id, q);
  EXPECT_EQ(p1.total, c.pool_size);
  ASSERT_EQ(p1.items.size(), 10u);
  for (std::size_t i = 1; i < p1.items.size(); ++i) EXPECT_LE(p1.items[i - 1].chi2, p1.items[i].chi2);
  q.offset = 10;
  const PoolPage p2 = m.pool(id, q);
  EXPECT_LE(p1.items.back().chi2, p2.items.front().chi2);
  PoolQuery five;
  five.only_steps(5);
  for (const auto& f : m.pool(id, five).items) EXPECT_EQ(f.steps, 5);

  // Best, leaders, hall of fame and function lookup agree.
  const auto leaders = m.leaders(id, 3);
  ASSERT_FALSE(leaders.empty());
  EXPECT_EQ(leaders.front().chi2, s.best->chi2);
  const auto hof = m.hall_of_fame(id);
  ASSERT_FALSE(hof.empty());
  EXPECT_EQ(hof.front().function.chi2, s.best->chi2);
  ASSERT_TRUE(m.function(s.best->id));
  EXPECT_EQ(m.function(s.best->id)->chi2, s.best->chi2);
  EXPECT_FALSE(m.history(id).empty());

  // The dump: a header and one line per pool member.
  const std::string dump = m.dump(id);
  EXPECT_EQ(static_cast<std::size_t>(std::count(dump.begin(), dump.end(), '\n')), c.pool_size + 2);

  // Resume with a new budget continues the counters.
  Budget more;
  more.tournaments = 1000;
  m.resume(id, more);
  EXPECT_TRUE(m.wait(id));
  const RunSummary s2 = m.get(id);
  EXPECT_GE(s2.counters.tournaments, s.counters.tournaments + 1000);
  EXPECT_LE(s2.best->chi2, s.best->chi2);

  EXPECT_THROW(m.get("nope"), RunNotFound);
  EXPECT_THROW(m.pause(id), RunStateError);
  m.remove(id);
  EXPECT_THROW(m.get(id), RunNotFound);
  EXPECT_FALSE(m.hall_of_fame().empty());  // hall-of-fame entries outlive their run
  std::filesystem::remove_all(dir);
}

TEST(RunManager, PauseResumeStop) {
  const mixforge::test::TempDir scratch("evolver-pause");
  const auto dir = scratch / "data";  // the manager creates it
  RunManager::Options o;
  o.data_dir = dir;
  o.interpreter_only = true;
  RunManager m(o);
  RunConfig c = small_exact_config(1);
  c.budget = {};
  const std::string id = m.create(c);
  // Until the run has done some tournaments (a fixed 300 ms was once not enough).
  poll_until([&] { return m.get(id).counters.tournaments > 0; }, Clock::now() + wait_bound);
  ASSERT_GT(m.get(id).counters.tournaments, 0u) << "no tournament in 2 minutes";
  m.pause(id);
  EXPECT_EQ(m.get(id).state, RunState::paused);
  EXPECT_THROW(m.resume(id + "x"), RunNotFound);
  m.resume(id);
  EXPECT_EQ(m.get(id).state, RunState::running);
  EXPECT_THROW(m.resume(id), RunStateError);
  m.stop(id);
  EXPECT_EQ(m.get(id).state, RunState::stopped);
  EXPECT_FALSE(m.active(id));
  EXPECT_GT(m.get(id).counters.tournaments, 0u);
  std::filesystem::remove_all(dir);
}

// Issue 8, defect 1: a pool of 2 with many workers crashed (a tournament started with
// fewer than two members). Every pool size and thread count must run to its budget.
TEST(Run, SmallPoolsWithMoreThreadsThanMembers) {
  avalanche::Evaluator ev(nullptr);
  for (std::size_t pool : {2u, 3u, 5u}) {
    for (unsigned threads : {1u, 2u, 4u, 8u}) {
      RunConfig c = small_exact_config(300);
      c.width = 8;  // the defect is the pool's size, not the width; 8 bits keep it cheap
      c.pool_size = pool;
      c.threads = threads;
      evolver::Run run("small", c, ev);
      run.start(c.budget);
      ASSERT_TRUE(run.wait(60.0)) << "pool " << pool << ", threads " << threads;
      EXPECT_EQ(run.error(), "") << "pool " << pool << ", threads " << threads;
      EXPECT_TRUE(run.budget_spent());
      const Checkpoint cp = run.snapshot();
      EXPECT_GE(cp.counters.tournaments, 300u);
      EXPECT_LE(cp.pool.size(), pool);
      EXPECT_GE(cp.pool.size(), 2u);
    }
  }
}

namespace {
// A 32-bit run whose ranker soon starts an exact score of a leader (2^32 inputs: seconds
// to minutes), for the tests that act while one is in flight.
RunConfig exact_leader_config() {
  RunConfig c;
  c.width = 32;
  c.max_steps = 5;
  c.pool_size = 40;
  c.seed = 3;
  c.threads = 1;
  c.precision.initial_samples = 1024;
  c.precision.max_samples = 1024;
  c.precision.leaders = 2;
  c.precision.leader_interval = 20;
  c.precision.exact_max_seconds = 1e9;
  c.early_reject.first_samples = 64;
  c.budget.seconds = 3600;
  return c;
}
}  // namespace

// A stop requested while the background ranker scores a leader exactly (2^32 inputs:
// tens of seconds) interrupts that scoring: the hook tells the test the exact score has
// begun, the test stops the run, and no exact score is counted or stored.
TEST(Run, StopInterruptsTheLeadersExactScoring) {
  const auto ev = avalanche::Evaluator::with_own_engine();
  const RunConfig c = exact_leader_config();
  evolver::Run run("stop-test", c, *ev);
  std::promise<void> started;
  std::atomic<bool> once{false};
  run.on_exact_start([&] {
    if (!once.exchange(true)) started.set_value();
  });
  run.start(c.budget);
  ASSERT_EQ(started.get_future().wait_for(std::chrono::minutes(5)), std::future_status::ready)
      << "the ranker never began an exact score";
  run.request_stop();
  ASSERT_TRUE(run.wait(600));
  EXPECT_EQ(run.error(), "");
  EXPECT_EQ(run.counters().exact_scored, 0u);
  const auto best = run.best();
  if (best) {
    EXPECT_FALSE(best->estimate.exact) << "a cancelled exact score was kept";
  }
}

// With local_search.exact_priority the tournament workers wait while the ranker scores a
// leader exactly; without it they go on. The hook runs on the ranker's thread once the
// exact score has begun: it lets the steps already in flight end, then watches the
// tournament count for a second.
namespace {
std::uint64_t tournaments_during_an_exact_score(bool priority) {
  const auto ev = avalanche::Evaluator::with_own_engine();
  RunConfig c = exact_leader_config();
  c.local_search.exact_priority = priority;
  evolver::Run run("priority-test", c, *ev);
  std::promise<std::uint64_t> seen;
  std::atomic<bool> once{false};
  run.on_exact_start([&] {
    if (once.exchange(true)) return;
    std::this_thread::sleep_for(std::chrono::seconds(1));
    const std::uint64_t before = run.counters().tournaments;
    std::this_thread::sleep_for(std::chrono::seconds(1));
    seen.set_value(run.counters().tournaments - before);
  });
  run.start(c.budget);
  auto f = seen.get_future();
  const bool began = f.wait_for(std::chrono::minutes(5)) == std::future_status::ready;
  EXPECT_TRUE(began) << "the ranker never began an exact score";
  const std::uint64_t during = began ? f.get() : 0;
  run.request_stop();
  EXPECT_TRUE(run.wait(600));
  EXPECT_EQ(run.error(), "");
  return during;
}
}  // namespace

TEST(Run, ExactPriorityHoldsTheTournamentsDuringAnExactScore) {
  EXPECT_EQ(tournaments_during_an_exact_score(true), 0u);
  EXPECT_GT(tournaments_during_an_exact_score(false), 0u);
}
