#include <gtest/gtest.h>

#include <SQLiteCpp/SQLiteCpp.h>

#include <filesystem>

#include "evolver/store.hpp"

using namespace mixforge;
using namespace mixforge::evolver;

namespace {
std::filesystem::path temp_dir(const std::string& name) {
  auto p = std::filesystem::temp_directory_path() / ("mixforge-store-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(p);
  return p;
}

Member member(std::uint64_t mul, double chi2, bool exact) {
  Program p(32, {{StepKind::xorshift_right, 16}, {StepKind::mul_const, mul}, {StepKind::xorshift_right, 15}});
  return Member{p, p.hash(), {chi2, exact ? 0.0 : chi2 / 10, exact ? (1ull << 32) : 65536, exact}, 17};
}
}  // namespace

TEST(Store, CheckpointRoundTrip) {
  const auto dir = temp_dir("roundtrip");
  RunConfig config;
  config.width = 32;
  config.name = "round trip";
  Checkpoint c;
  c.pool = {member(0x7feb352d, 1e-3, false), member(0x846ca68b, 2e-5, true), member(0x21f0aaad, 4e-4, false)};
  c.counters.tournaments = 1234;
  c.counters.scored = 999;
  c.counters.early_rejects = 55;
  c.counters.elapsed_s = 12.5;
  c.current_samples = 1 << 18;
  c.next_leader_at = 4000;
  c.rngs = {Rng(1, 0).state(), Rng(1, 1).state()};
  c.best = c.pool[1];
  c.sessions = 2;
  HallOfFameEntry e{scored_function(*c.best), "r1", 3.5, 1200, 1.7e9};
  {
    Store s(dir);
    s.create_run("r1", config, 1.7e9);
    s.checkpoint("r1", RunState::running, c, {{1.0, 100, 90, 1e-3, false}, {2.0, 200, 180, 2e-5, true}}, 4242);
    s.checkpoint("r1", RunState::running, c, {{3.0, 300, 270, 2e-5, true}}, 4242);
    s.add_hall_of_fame({e});
    EXPECT_THROW(s.checkpoint("nope", RunState::running, c, {}, 1), RunNotFound);
  }
  Store s(dir);  // reopen: migrations are idempotent
  EXPECT_EQ(s.integrity_check(), "ok");
  const auto loaded = s.load_checkpoint("r1");
  ASSERT_TRUE(loaded);
  EXPECT_EQ(loaded->pool, c.pool);
  EXPECT_EQ(loaded->rngs, c.rngs);
  EXPECT_EQ(loaded->best, c.best);
  EXPECT_EQ(loaded->counters.tournaments, 1234u);
  EXPECT_EQ(loaded->counters.early_rejects, 55u);
  EXPECT_EQ(loaded->counters.elapsed_s, 12.5);
  EXPECT_EQ(loaded->current_samples, 1u << 18);
  EXPECT_EQ(loaded->next_leader_at, 4000u);
  EXPECT_EQ(loaded->sessions, 2u);
  const auto run = s.run("r1");
  ASSERT_TRUE(run);
  EXPECT_EQ(run->summary.name, "round trip");
  EXPECT_EQ(run->summary.state, RunState::running);
  EXPECT_EQ(run->owner_pid, 4242);
  ASSERT_TRUE(run->summary.best);
  EXPECT_EQ(run->summary.best->chi2, 2e-5);
  const auto h = s.history("r1");
  ASSERT_EQ(h.size(), 3u);
  EXPECT_EQ(h[2].tournaments, 300u);
  const auto hof = s.hall_of_fame("", 10);
  ASSERT_EQ(hof.size(), 1u);
  EXPECT_EQ(hof[0].function.program, c.best->program);
  EXPECT_EQ(hof[0].elapsed_s, 3.5);
  const auto f = s.function(c.pool[0].program.id());
  ASSERT_TRUE(f);
  EXPECT_EQ(f->chi2, 1e-3);
  EXPECT_FALSE(s.function("0000000000000000"));
  s.remove_run("r1");
  EXPECT_FALSE(s.run("r1"));
  EXPECT_TRUE(s.pool("r1").empty());
  EXPECT_EQ(s.hall_of_fame("r1", 10).size(), 1u);  // the hall of fame keeps it
  std::filesystem::remove_all(dir);
}

TEST(Store, RefusesANewerSchema) {
  const auto dir = temp_dir("newer");
  { Store s(dir); }
  {
    SQLite::Database db((dir / "mixforge.db").string(), SQLite::OPEN_READWRITE);
    db.exec("PRAGMA user_version=99");
  }
  EXPECT_THROW(Store s(dir), std::runtime_error);
  std::filesystem::remove_all(dir);
}
