#include <gtest/gtest.h>

#include <SQLiteCpp/SQLiteCpp.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <latch>
#include <thread>
#include <set>
#include <tuple>

#include "support/process.hpp"
#include "evolver/run/checkpoint_json.hpp"
#include "evolver/store/store.hpp"
#include "mixer/text_form.hpp"

using namespace mixforge;
using namespace mixforge::evolver;

namespace {

Member member(std::uint64_t mul, double chi2, bool exact) {
  mixer::Program p(32, {{mixer::StepKind::xorshift_right, 16},
                        {mixer::StepKind::mul_const, mul},
                        {mixer::StepKind::xorshift_right, 15}});
  return Member{p, p.hash(), {chi2, exact ? 0.0 : chi2 / 10, exact ? (1ull << 32) : 65536, exact}, 17};
}

// The data directory's database back in version 1's shape (every later table, column and
// index dropped), as a database written before the migrations would be. The runs stay.
void back_to_version_one(const std::filesystem::path& dir) {
  SQLite::Database db((dir / "mixforge.db").string(), SQLite::OPEN_READWRITE);
  db.exec(
      "DROP INDEX pool_rank; DROP INDEX pool_born; DROP INDEX hall_of_fame_run_rank; DROP INDEX hall_of_fame_rank;"
      "ALTER TABLE runs DROP COLUMN resume_on_start; ALTER TABLE pool DROP COLUMN rank;"
      "ALTER TABLE pool DROP COLUMN kinds; CREATE INDEX hall_of_fame_rank ON hall_of_fame(width, chi2);"
      "DROP TABLE notes; DROP TABLE quality_reports; ALTER TABLE runs DROP COLUMN islands;"
      "DROP TABLE island_checkpoints; ALTER TABLE runs DROP COLUMN clocks; ALTER TABLE runs DROP COLUMN climbs; "
      "ALTER TABLE runs DROP COLUMN session;"
      "PRAGMA user_version=1");
}
}  // namespace

TEST(Store, CheckpointRoundTrip) {
  const mixforge::test::TempDir tmp1("store-roundtrip");
  const auto& dir = tmp1.path();
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
  c.stagnation_clock = ClockState{10, 12.5, 40, 3e-4};
  c.trap_clock = ClockState{800, 800, 2400, std::nullopt};
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
  EXPECT_EQ(loaded->stagnation_clock, c.stagnation_clock);
  EXPECT_EQ(loaded->trap_clock, c.trap_clock);
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
  const mixforge::test::TempDir tmp2("store-newer");
  const auto& dir = tmp2.path();
  { Store s(dir); }
  {
    SQLite::Database db((dir / "mixforge.db").string(), SQLite::OPEN_READWRITE);
    db.exec("PRAGMA user_version=99");
  }
  EXPECT_THROW(Store s(dir), std::runtime_error);
  std::filesystem::remove_all(dir);
}

namespace {
// A pool with varied steps, kinds, scores and ages.
std::vector<Member> varied_pool(int n) {
  std::vector<Member> pool;
  Rng rng(99, 1);
  const mixer::StepKind kinds[] = {mixer::StepKind::xorshift_right, mixer::StepKind::mul_const,
                                   mixer::StepKind::add_const, mixer::StepKind::rotate};
  for (int i = 0; i < n; ++i) {
    std::vector<mixer::Step> steps;
    const int len = 1 + static_cast<int>(rng.below(5));
    for (int k = 0; k < len; ++k) {
      const mixer::StepKind kind = kinds[rng.below(4)];
      steps.push_back({kind, mixer::takes_shift(kind) ? 1 + rng.below(31) : (rng.next() | 1) & 0xffffffffu});
    }
    mixer::Program p(32, steps);
    const bool exact = rng.chance(0.3);
    const double chi2 = std::ldexp(1.0 + rng.uniform(), -static_cast<int>(rng.below(12)));
    pool.push_back(Member{p,
                          p.hash(),
                          {chi2, exact ? 0 : chi2 * rng.uniform() * 2, exact ? 1ull << 32 : 4096, exact},
                          rng.below(1000)});
  }
  return pool;
}
}  // namespace

// Pool pages in SQL select, order and page exactly as PoolQuery does in memory (the run
// manager's path for live runs): one set of rules for both.
TEST(Store, PoolPagesInSqlMatchTheQueryInMemory) {
  const mixforge::test::TempDir tmp3("store-poolpage");
  const auto& dir = tmp3.path();
  Store s(dir);
  s.create_run("r1", RunConfig{}, 1.7e9);
  Checkpoint c;
  c.pool = varied_pool(400);
  // Distinct programs only (the pool's rule).
  std::vector<Member> unique;
  for (const Member& m : c.pool)
    if (std::none_of(unique.begin(), unique.end(), [&](const Member& u) { return u.hash == m.hash; }))
      unique.push_back(m);
  c.pool = unique;
  s.checkpoint("r1", RunState::stopped, c, {}, 0);
  EXPECT_EQ(s.pool_count("r1"), c.pool.size());
  std::vector<PoolQuery> queries(8);
  queries[1].order = PoolQuery::Order::born;
  queries[1].descending = true;
  queries[2].order = PoolQuery::Order::steps;
  queries[2].min_steps = 2;
  queries[2].max_steps = 4;
  queries[3].kinds = std::vector<mixer::StepKind>{mixer::StepKind::xorshift_right, mixer::StepKind::mul_const};
  queries[4].uses_kind = mixer::StepKind::rotate;
  queries[4].exact_only = true;
  queries[5].max_chi2 = 0.01;
  queries[5].offset = 7;
  queries[5].limit = 13;
  queries[6].only_steps(3);
  queries[6].descending = true;
  queries[7].offset = 1000;  // past the end
  for (std::size_t qi = 0; qi < queries.size(); ++qi) {
    const PoolQuery& q = queries[qi];
    std::vector<Member> want;
    for (const Member& m : c.pool)
      if (q.matches(m)) want.push_back(m);
    std::sort(want.begin(), want.end(), [&](const Member& a, const Member& b) { return q.before(a, b); });
    const PoolPage page = s.pool_page("r1", q);
    EXPECT_EQ(page.total, want.size()) << "query " << qi;
    std::vector<std::string> got_ids, want_ids;
    for (const auto& f : page.items) got_ids.push_back(f.id);
    for (std::size_t i = q.offset; i < want.size() && want_ids.size() < q.limit; ++i)
      want_ids.push_back(want[i].program.id());
    EXPECT_EQ(got_ids, want_ids) << "query " << qi;
  }
  std::filesystem::remove_all(dir);
}

// The hall of fame pages in SQL: every entry once, in the listing order, with the total.
TEST(Store, HallOfFamePagesInSql) {
  const mixforge::test::TempDir tmp4("store-hofpage");
  const auto& dir = tmp4.path();
  Store s(dir);
  std::vector<HallOfFameEntry> entries;
  const std::vector<Member> pool = varied_pool(2500);
  for (std::size_t i = 0; i < pool.size(); ++i)
    entries.push_back({scored_function(pool[i]), i % 3 ? "ra" : "rb", double(i), i, 1.7e9 + double(i)});
  s.add_hall_of_fame(entries);
  HallOfFameQuery q;
  q.limit = 1000;
  std::set<std::pair<std::string, std::string>> seen;
  std::size_t total = 0;
  std::optional<HallOfFameEntry> last;
  for (q.offset = 0;; q.offset += q.limit) {
    const HallOfFamePage page = s.hall_of_fame(q);
    total = page.total;
    if (page.items.empty()) break;
    for (const auto& e : page.items) {
      EXPECT_TRUE(seen.insert({e.run_id, e.function.id}).second);
      if (last) {
        const auto key = [](const HallOfFameEntry& x) {
          return std::make_tuple(x.function.width, !x.function.exact, x.function.chi2, x.recorded_at);
        };
        EXPECT_LE(key(*last), key(e));
      }
      last = e;
    }
  }
  EXPECT_EQ(total, seen.size());
  q = {};
  q.run_id = "rb";
  q.max_steps = 2;
  q.limit = 5;
  const HallOfFamePage rb = s.hall_of_fame(q);
  EXPECT_EQ(rb.items.size(), 5u);
  for (const auto& e : rb.items) {
    EXPECT_EQ(e.run_id, "rb");
    EXPECT_LE(e.function.steps, 2);
  }
  std::filesystem::remove_all(dir);
}

// A version-1 database (before resume_on_start) with a serve-state.json beside it: the
// migration imports the file once into the runs table, removes it, and fills the new
// pool columns so pool pages work on old rows.
TEST(Store, MigrationImportsServeStateOnce) {
  const mixforge::test::TempDir tmp5("store-migrate");
  const auto& dir = tmp5.path();
  Checkpoint c;
  c.pool = {member(0x7feb352d, 1e-3, false), member(0x846ca68b, 2e-5, true)};
  {
    Store s(dir);
    s.create_run("r1", RunConfig{}, 1.7e9);
    s.create_run("r2", RunConfig{}, 1.7e9 + 1);
    s.checkpoint("r1", RunState::running, c, {}, 0);
  }
  back_to_version_one(dir);
  { std::ofstream(dir / "serve-state.json") << R"({"running": ["r1", "gone"]})"; }
  {
    Store s(dir);
    EXPECT_EQ(s.runs_to_resume(), std::vector<std::string>{"r1"});
    EXPECT_FALSE(std::filesystem::exists(dir / "serve-state.json"));
    EXPECT_TRUE(s.run("r1")->resume_on_start);
    EXPECT_FALSE(s.run("r2")->resume_on_start);
    PoolQuery q;
    q.uses_kind = mixer::StepKind::mul_const;
    const PoolPage page = s.pool_page("r1", q);
    ASSERT_EQ(page.total, 2u);
    EXPECT_EQ(page.items[0].chi2, 2e-5);  // ranks filled in
    s.set_state("r1", RunState::stopped, 0, {}, false);
    // Version 3's notes table exists after the migration from 1.
    EXPECT_EQ(s.put_note(NoteSubject::run, "r1", "migrated", std::nullopt, 1)->version, 1u);
    EXPECT_EQ(s.integrity_check(), "ok");
  }
  {
    // A file appearing later is not imported again: the database is the one record.
    std::ofstream(dir / "serve-state.json") << R"({"running": ["r2"]})";
    Store s(dir);
    EXPECT_TRUE(s.runs_to_resume().empty());
    SQLite::Database db((dir / "mixforge.db").string(), SQLite::OPEN_READONLY);
    EXPECT_EQ(db.execAndGet("PRAGMA user_version").getInt(), Store::schema_version);
  }
  std::filesystem::remove_all(dir);
}

TEST(Store, MigrationFrom3AddsQualityReportsAndKeepsNotes) {
  const mixforge::test::TempDir tmp("store-migrate-4");
  const auto& dir = tmp.path();
  {
    Store s(dir);
    s.create_run("r1", RunConfig{}, 1.7e9);
    ASSERT_TRUE(s.put_note(NoteSubject::function, "0123456789abcdef", "kept", std::nullopt, 2));
  }
  {
    // Back to version 3's shape.
    SQLite::Database db((dir / "mixforge.db").string(), SQLite::OPEN_READWRITE);
    db.exec(
        "DROP TABLE island_checkpoints; DROP TABLE quality_reports; ALTER TABLE runs DROP COLUMN islands; "
        "ALTER TABLE runs DROP COLUMN clocks; ALTER TABLE runs DROP COLUMN climbs; ALTER TABLE runs DROP COLUMN "
        "session; PRAGMA user_version=3");
  }
  {
    Store s(dir);
    EXPECT_EQ(s.note(NoteSubject::function, "0123456789abcdef")->text, "kept");
    EXPECT_FALSE(s.quality_report("0123456789abcdef", "v1;quick;seed=1;battery=1"));
    s.put_quality_report("0123456789abcdef", "v1;quick;seed=1;battery=1", R"({"a":1})", 10);
    s.put_quality_report("0123456789abcdef", "v1;standard;seed=1;battery=1", R"({"b":2})", 11);
    s.put_quality_report("0123456789abcdef", "v1;quick;seed=1;battery=1", R"({"a":3})", 12);  // replaces
    const auto quick = s.quality_report("0123456789abcdef", "v1;quick;seed=1;battery=1");
    ASSERT_TRUE(quick);
    EXPECT_EQ(quick->report, R"({"a":3})");
    EXPECT_EQ(quick->computed_at, 12);
    EXPECT_EQ(s.quality_report("0123456789abcdef", "v1;standard;seed=1;battery=1")->report, R"({"b":2})");
    EXPECT_FALSE(s.quality_report("fedcba9876543210", "v1;quick;seed=1;battery=1"));
    EXPECT_EQ(s.integrity_check(), "ok");
  }
  {
    // Reports are in the file: a new connection reads them; the version is the newest.
    Store s(dir);
    EXPECT_EQ(s.quality_report("0123456789abcdef", "v1;quick;seed=1;battery=1")->report, R"({"a":3})");
    SQLite::Database db((dir / "mixforge.db").string(), SQLite::OPEN_READONLY);
    EXPECT_EQ(db.execAndGet("PRAGMA user_version").getInt(), Store::schema_version);
  }
}

TEST(Store, IslandsOfARunRoundTripAndVersionFourMigrates) {
  const mixforge::test::TempDir tmp("store-islands");
  const auto dir = tmp.path();
  RunConfig config;
  {
    Store s(dir);
    s.create_run("r1", config, 1);
    s.create_run("r2", config, 2);
  }
  {
    // Back to version 4's shape: no islands column. The runs stay.
    SQLite::Database db((dir / "mixforge.db").string(), SQLite::OPEN_READWRITE);
    db.exec(
        "DROP TABLE island_checkpoints; ALTER TABLE runs DROP COLUMN islands; ALTER TABLE runs DROP COLUMN clocks; "
        "ALTER TABLE runs DROP COLUMN climbs; ALTER TABLE runs DROP COLUMN session; "
        "PRAGMA user_version=4");
  }
  Store s(dir);
  ASSERT_TRUE(s.run("r1"));
  EXPECT_TRUE(s.run("r1")->summary.islands.empty()) << "an ordinary run has no islands";
  IslandStatus a;
  a.rank = 0;
  a.host = "node-a";
  a.counters.tournaments = 1234;
  a.migrants_sent = 8;
  a.migrants_accepted = 3;
  a.finished = true;
  ScoredFunction f;
  f.program = mixer::parse_program("x ^= x >> 16; x *= 0x7feb352d; x ^= x >> 15;");
  f.id = f.program.id();
  f.text = mixer::format_program(f.program);
  f.width = 32;
  f.steps = 3;
  f.chi2 = 0.25;
  f.exact = true;
  f.chi2_exact = 0.25;
  a.best = f;
  IslandStatus b;
  b.rank = 1;
  b.migrants_received = 8;
  b.lost = true;
  s.set_islands("r1", {a, b});
  const auto islands = s.run("r1")->summary.islands;
  ASSERT_EQ(islands.size(), 2u);
  EXPECT_EQ(islands[0].counters.tournaments, 1234u);
  EXPECT_EQ(islands[0].migrants_sent, 8u);
  EXPECT_EQ(islands[0].migrants_accepted, 3u);
  EXPECT_TRUE(islands[0].finished);
  ASSERT_TRUE(islands[0].best);
  EXPECT_EQ(islands[0].best->program, f.program);
  EXPECT_EQ(islands[0].best->chi2_exact, 0.25);
  EXPECT_EQ(islands[0].host, "node-a");
  EXPECT_EQ(islands[1].rank, 1);
  EXPECT_EQ(islands[1].host, "") << "a rank whose machine was never heard of";
  EXPECT_TRUE(islands[1].lost);
  EXPECT_FALSE(islands[1].best);
  EXPECT_TRUE(s.run("r2")->summary.islands.empty());
  EXPECT_THROW(s.set_islands("nope", {a}), RunNotFound);
  EXPECT_EQ(s.integrity_check(), "ok");
}

TEST(Store, NotesVersionedPerSubjectAndGoneWithTheirRun) {
  const mixforge::test::TempDir tmp("store-notes");
  const auto& dir = tmp.path();
  {
    Store s(dir);
    s.create_run("r1", RunConfig{}, 1.7e9);
    EXPECT_FALSE(s.note(NoteSubject::run, "r1"));
    // A run that does not exist gets no note (and no orphan row).
    EXPECT_FALSE(s.put_note(NoteSubject::run, "nope", "x", std::nullopt, 1));
    EXPECT_FALSE(s.note(NoteSubject::run, "nope"));

    auto n1 = s.put_note(NoteSubject::run, "r1", "# first", std::nullopt, 10);
    ASSERT_TRUE(n1);
    EXPECT_EQ(n1->version, 1u);
    auto n2 = s.put_note(NoteSubject::run, "r1", "# second", 1, 11);
    ASSERT_TRUE(n2);
    EXPECT_EQ(n2->version, 2u);
    try {
      s.put_note(NoteSubject::run, "r1", "stale", 1, 12);
      ADD_FAILURE() << "a save from version 1 over version 2 must be refused";
    } catch (const NoteConflict& e) {
      EXPECT_EQ(e.current_version(), 2u);
    }
    // A save without base_version is a plain overwrite (last writer wins, as the user asked).
    EXPECT_EQ(s.put_note(NoteSubject::run, "r1", "# third", std::nullopt, 13)->version, 3u);
    // The same id under the other subject is another note.
    EXPECT_EQ(s.put_note(NoteSubject::function, "r1", "fn", 0, 14)->version, 1u);
    EXPECT_EQ(s.put_note(NoteSubject::function, "0123456789abcdef", "kept", std::nullopt, 15)->version, 1u);
  }
  Store s(dir);  // reopened: stored, not cached
  const auto n = s.note(NoteSubject::run, "r1");
  ASSERT_TRUE(n);
  EXPECT_EQ(n->text, "# third");
  EXPECT_EQ(n->version, 3u);
  EXPECT_EQ(*n->updated_at, 13);
  s.remove_run("r1");
  EXPECT_FALSE(s.note(NoteSubject::run, "r1"));
  EXPECT_EQ(s.note(NoteSubject::function, "r1")->text, "fn");
  EXPECT_EQ(s.note(NoteSubject::function, "0123456789abcdef")->text, "kept");
  EXPECT_EQ(s.integrity_check(), "ok");
}

// The other ranks' checkpoints of an island run: stored whole per rank, replaced by the
// next, read back equal (pool, counters, RNG states, best), gone with their run; a
// version-5 file gains the table and keeps its runs.
TEST(Store, IslandCheckpointsRoundTripAndGoWithTheirRun) {
  const mixforge::test::TempDir tmp("store-island-checkpoints");
  const auto dir = tmp.path();
  {
    Store s(dir);
    s.create_run("r1", RunConfig{}, 1);
    s.create_run("r2", RunConfig{}, 2);
  }
  {
    SQLite::Database db((dir / "mixforge.db").string(), SQLite::OPEN_READWRITE);
    db.exec(
        "DROP TABLE island_checkpoints; ALTER TABLE runs DROP COLUMN clocks; ALTER TABLE runs DROP COLUMN climbs; "
        "ALTER TABLE runs DROP COLUMN session; "
        "PRAGMA user_version=5");
  }
  Store s(dir);
  ASSERT_TRUE(s.run("r1"));
  EXPECT_TRUE(s.island_checkpoints("r1").empty());
  Checkpoint c;
  c.pool = {member(0x7feb352d, 1e-3, false), member(0x846ca68b, 2e-5, true)};
  c.counters.tournaments = 4321;
  c.counters.scored = 9999;
  c.current_samples = 1 << 16;
  c.next_leader_at = 5000;
  c.rngs = {{1, 2, 3, 0xffffffffffffffffull}, {0x8000000000000000ull, 5, 6, 7}};
  c.best = c.pool[1];
  c.sessions = 2;
  c.stagnation_clock = ClockState{0, 0, 0, std::nullopt};
  c.trap_clock = ClockState{4000, 4150, 4150, 0.0625};
  s.put_island_checkpoint("r1", 2, c);
  Checkpoint later = c;
  later.counters.tournaments = 5000;
  s.put_island_checkpoint("r1", 1, c);
  s.put_island_checkpoint("r1", 1, later);  // replaces rank 1's
  const auto stored = s.island_checkpoints("r1");
  ASSERT_EQ(stored.size(), 2u);
  EXPECT_EQ(stored.at(1).counters.tournaments, 5000u);
  const Checkpoint& back = stored.at(2);
  EXPECT_EQ(back.pool, c.pool);
  EXPECT_EQ(back.counters.tournaments, 4321u);
  EXPECT_EQ(back.counters.scored, 9999u);
  EXPECT_EQ(back.current_samples, c.current_samples);
  EXPECT_EQ(back.next_leader_at, 5000u);
  EXPECT_EQ(back.rngs, c.rngs);
  ASSERT_TRUE(back.best);
  EXPECT_EQ(*back.best, *c.best);
  EXPECT_EQ(back.sessions, 2u);
  EXPECT_EQ(back.stagnation_clock, c.stagnation_clock);
  EXPECT_EQ(back.trap_clock, c.trap_clock);
  EXPECT_TRUE(s.island_checkpoints("r2").empty());
  EXPECT_THROW(s.put_island_checkpoint("nope", 1, c), RunNotFound);
  s.remove_run("r1");
  EXPECT_TRUE(s.island_checkpoints("r1").empty());
  EXPECT_EQ(s.integrity_check(), "ok");
}

// A damaged checkpoint document names the field that is wrong.
TEST(CheckpointJson, MalformedDocumentsNameTheField) {
  Checkpoint c;
  c.pool = {member(0x7feb352d, 1e-3, false)};
  c.rngs = {{1, 2, 3, 4}};
  nlohmann::json j = to_json(c);
  EXPECT_EQ(checkpoint_from_json(j).pool, c.pool);
  auto message = [](const nlohmann::json& bad) {
    try {
      checkpoint_from_json(bad);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  nlohmann::json no_pool = j;
  no_pool.erase("pool");
  EXPECT_NE(message(no_pool).find("checkpoint.pool"), std::string::npos) << message(no_pool);
  nlohmann::json bad_rng = j;
  bad_rng["rngs"][0][2] = "not hex";
  EXPECT_NE(message(bad_rng).find("checkpoint.rngs"), std::string::npos) << message(bad_rng);
  nlohmann::json bad_member = j;
  bad_member["pool"][0].erase("chi2");
  EXPECT_NE(message(bad_member).find("checkpoint.pool"), std::string::npos) << message(bad_member);
  // Clocks: null or absent (written before checkpoints kept them) is none; a damaged one
  // names its part.
  EXPECT_TRUE(j.contains("clocks") && j["clocks"].is_null());
  nlohmann::json old = j;
  old.erase("clocks");
  EXPECT_FALSE(checkpoint_from_json(old).trap_clock);
  c.stagnation_clock = ClockState{1, 2, 3, 0.5};
  c.trap_clock = ClockState{4, 5, 6, std::nullopt};
  const nlohmann::json with_clocks = to_json(c);
  EXPECT_EQ(checkpoint_from_json(with_clocks).stagnation_clock, c.stagnation_clock);
  EXPECT_EQ(checkpoint_from_json(with_clocks).trap_clock, c.trap_clock);
  nlohmann::json bad_clock = with_clocks;
  bad_clock["clocks"]["trap"]["wait_from"] = "soon";
  EXPECT_NE(message(bad_clock).find("checkpoint.clocks.trap.wait_from"), std::string::npos) << message(bad_clock);
  nlohmann::json half = with_clocks;
  half["clocks"].erase("stagnation");
  EXPECT_NE(message(half).find("checkpoint.clocks"), std::string::npos) << message(half);
}

// A version-6 file gains the clocks column; its runs' checkpoints load without clocks (they
// start afresh at the resume), and a new checkpoint keeps them.
TEST(Store, VersionSixMigratesToCheckpointClocks) {
  const mixforge::test::TempDir tmp("store-clocks");
  const auto dir = tmp.path();
  Checkpoint c;
  c.pool = {member(0x7feb352d, 1e-3, false)};
  c.rngs = {{1, 2, 3, 4}};
  c.counters.tournaments = 700;
  {
    Store s(dir);
    s.create_run("r1", RunConfig{}, 1);
    s.checkpoint("r1", RunState::paused, c, {}, 0);
  }
  {
    SQLite::Database db((dir / "mixforge.db").string(), SQLite::OPEN_READWRITE);
    db.exec(
        "ALTER TABLE runs DROP COLUMN clocks; ALTER TABLE runs DROP COLUMN climbs; ALTER TABLE runs DROP COLUMN "
        "session; PRAGMA user_version=6");
  }
  Store s(dir);
  const auto old = s.load_checkpoint("r1");
  ASSERT_TRUE(old);
  EXPECT_EQ(old->counters.tournaments, 700u);
  EXPECT_EQ(old->pool, c.pool);
  EXPECT_FALSE(old->stagnation_clock);
  EXPECT_FALSE(old->trap_clock);
  c.stagnation_clock = ClockState{0, 100, 200, 0.25};
  c.trap_clock = ClockState{0, 0, 0, std::nullopt};
  s.checkpoint("r1", RunState::paused, c, {}, 0);
  EXPECT_EQ(s.load_checkpoint("r1")->stagnation_clock, c.stagnation_clock);
  EXPECT_EQ(s.load_checkpoint("r1")->trap_clock, c.trap_clock);
  EXPECT_EQ(s.integrity_check(), "ok");
}

// The seed programs' climbs (schema version 8): kept with the checkpoint, each with its centre.
TEST(Store, CheckpointKeepsTheSeedProgramsClimbs) {
  const mixforge::test::TempDir tmp("store-climbs");
  Checkpoint c;
  c.pool = {member(0x7feb352d, 1e-3, false)};
  ClimbStatus a;
  a.seed = 0;
  a.start = mixer::Program(32, {{mixer::StepKind::xorshift_right, 16}, {mixer::StepKind::mul_const, 0xf35a2d97}});
  a.centre = mixer::Program(32, {{mixer::StepKind::xorshift_right, 16}, {mixer::StepKind::mul_const, 0x735a2d97}});
  a.chi2_exact = 0.25;
  a.moves = 1;
  a.scored = 69;
  a.pairs = true;
  a.position = 12;
  a.neighbourhood = 466;
  ClimbStatus b;
  b.seed = 1;
  b.start = a.start;  // not scored yet: no centre
  c.climbs = {a, b};
  Store s(tmp.path());
  s.create_run("r1", RunConfig{}, 1);
  s.checkpoint("r1", RunState::paused, c, {}, 0);
  const auto back = s.load_checkpoint("r1");
  ASSERT_TRUE(back);
  ASSERT_EQ(back->climbs.size(), 2u);
  EXPECT_EQ(back->climbs[0].start, a.start);
  EXPECT_EQ(back->climbs[0].centre, a.centre);
  EXPECT_EQ(back->climbs[0].chi2_exact, 0.25);
  EXPECT_EQ(back->climbs[0].moves, 1u);
  EXPECT_EQ(back->climbs[0].scored, 69u);
  EXPECT_TRUE(back->climbs[0].pairs);
  EXPECT_EQ(back->climbs[0].position, 12u);
  EXPECT_EQ(back->climbs[0].neighbourhood, 466u);
  EXPECT_FALSE(back->climbs[0].done);
  EXPECT_EQ(back->climbs[1].seed, 1u);
  EXPECT_FALSE(back->climbs[1].centre);
  ASSERT_EQ(s.climbs("r1").size(), 2u);  // the column alone, for a stored run's progress
  EXPECT_EQ(s.climbs("r1")[0].centre, a.centre);
  EXPECT_TRUE(s.climbs("rnone").empty());
  // A run without seed programs keeps none.
  s.checkpoint("r1", RunState::paused, Checkpoint{}, {}, 0);
  EXPECT_TRUE(s.load_checkpoint("r1")->climbs.empty());
  EXPECT_TRUE(s.climbs("r1").empty());
}

// The session's budget (schema version 9): kept with the checkpoint, so that a restart gives
// the run what is left of it. A version-8 database migrates with its runs, pools, histories
// and checkpoints as they were; their checkpoints have no session (counted afresh).
TEST(Store, VersionEightMigratesToTheSessionBudgetAndKeepsItsRows) {
  const mixforge::test::TempDir tmp("store-session");
  const auto dir = tmp.path();
  Checkpoint c;
  c.pool = {member(0x7feb352d, 1e-3, false), member(0x846ca68b, 2e-3, true)};
  c.rngs = {{1, 2, 3, 4}};
  c.counters.tournaments = 700;
  c.counters.elapsed_s = 12.5;
  c.best = c.pool[0];
  c.stagnation_clock = ClockState{0, 100, 200, 0.25};
  c.trap_clock = ClockState{0, 0, 0, std::nullopt};
  RunConfig config;
  config.name = "old";
  config.budget.seconds = 60;
  {
    Store s(dir);
    s.create_run("r1", config, 1);
    s.checkpoint("r1", RunState::stopped, c, {{12.5, 700, 900, 1e-3, false}}, 0, {}, true);
    s.add_hall_of_fame({{scored_function(c.pool[1]), "r1", 10, 600, 2}});
    s.put_note(NoteSubject::run, "r1", "kept", std::nullopt, 3);
  }
  {
    SQLite::Database db((dir / "mixforge.db").string(), SQLite::OPEN_READWRITE);
    db.exec("ALTER TABLE runs DROP COLUMN session; PRAGMA user_version=8");
  }
  {
    Store s(dir);
    const auto r = s.run("r1");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->summary.config.name, "old");
    EXPECT_EQ(r->summary.config.budget.seconds, 60.0);
    EXPECT_EQ(r->summary.state, RunState::stopped);
    EXPECT_TRUE(r->resume_on_start);
    const auto old = s.load_checkpoint("r1");
    ASSERT_TRUE(old);
    EXPECT_EQ(old->pool, c.pool);
    EXPECT_EQ(old->counters.tournaments, 700u);
    EXPECT_EQ(old->best, c.best);
    EXPECT_EQ(old->stagnation_clock, c.stagnation_clock);
    EXPECT_FALSE(old->session) << "a checkpoint from before keeps no session";
    EXPECT_EQ(s.history("r1").size(), 1u);
    EXPECT_EQ(s.hall_of_fame("r1", 10).size(), 1u);
    EXPECT_EQ(s.note(NoteSubject::run, "r1")->text, "kept");
    c.session = SessionBudget{Budget{20.0, 3000}, 500, 10.0};
    s.checkpoint("r1", RunState::stopped, c, {}, 0);
    EXPECT_EQ(s.load_checkpoint("r1")->session, c.session);
    EXPECT_EQ(s.integrity_check(), "ok");
  }
  {
    SQLite::Database db((dir / "mixforge.db").string(), SQLite::OPEN_READONLY);
    EXPECT_EQ(db.execAndGet("PRAGMA user_version").getInt(), Store::schema_version);
  }
  // Only tournaments: seconds stay unset; a checkpoint without a session clears it.
  Store s(dir);
  c.session = SessionBudget{Budget{std::nullopt, 3000}, 500, 10.0};
  s.checkpoint("r1", RunState::stopped, c, {}, 0);
  EXPECT_EQ(s.load_checkpoint("r1")->session, c.session);
  c.session.reset();
  s.checkpoint("r1", RunState::stopped, c, {}, 0);
  EXPECT_FALSE(s.load_checkpoint("r1")->session);
}

// What is left of a session's budget: each part counted from the session's start, none below zero.
TEST(SessionBudget, RemainingIsWhatTheSessionHasNotSpent) {
  const SessionBudget s{Budget{20.0, 3000}, 500, 51.0};
  RunCounters at;
  at.tournaments = 1500;
  at.elapsed_s = 59.0;
  EXPECT_EQ(s.remaining(at), (Budget{12.0, 2000}));
  at.tournaments = 4000;
  at.elapsed_s = 80.0;
  EXPECT_EQ(s.remaining(at), (Budget{0.0, 0}));
  EXPECT_EQ((SessionBudget{Budget{}, 500, 51.0}.remaining(at)), Budget{}) << "no budget: none left to count";
}

// Processes opening one database at once (a daemon and a CLI command, say) each open it
// on their own connection; the schema is created or migrated exactly once. Here: 4
// connections released together by a latch, on a fresh folder and on a version-1 file.
TEST(Store, ConnectionsOpeningTogetherMigrateOnce) {
  auto open_together = [](const std::filesystem::path& dir) {
    constexpr int n = 4;
    std::latch go(n);
    std::vector<std::string> errors(n);
    std::vector<std::thread> threads;
    for (int i = 0; i < n; ++i)
      threads.emplace_back([&, i] {
        go.arrive_and_wait();
        try {
          Store s(dir);
        } catch (const std::exception& e) {
          errors[i] = e.what();
        }
      });
    for (auto& t : threads) t.join();
    for (int i = 0; i < n; ++i) EXPECT_EQ(errors[i], "") << "connection " << i;
  };
  for (int round = 0; round < 5; ++round) {
    const mixforge::test::TempDir tmp6("store-race");
    const auto& dir = tmp6.path();
    open_together(dir);
    {
      SQLite::Database db((dir / "mixforge.db").string(), SQLite::OPEN_READONLY);
      EXPECT_EQ(db.execAndGet("PRAGMA user_version").getInt(), Store::schema_version);
    }
    // Back to version 1, with rows and a serve-state.json, then migrated by 4 at once.
    Checkpoint c;
    c.pool = {member(0x7feb352d, 1e-3, false), member(0x846ca68b, 2e-5, true)};
    {
      Store s(dir);
      s.create_run("r1", RunConfig{}, 1.7e9);
      s.checkpoint("r1", RunState::running, c, {}, 0);
    }
    back_to_version_one(dir);
    std::ofstream(dir / "serve-state.json") << R"({"running": ["r1"]})";
    open_together(dir);
    Store s(dir);
    EXPECT_EQ(s.runs_to_resume(), std::vector<std::string>{"r1"});
    PoolQuery q;
    EXPECT_EQ(s.pool_page("r1", q).total, 2u);
    EXPECT_EQ(s.integrity_check(), "ok");
    std::filesystem::remove_all(dir);
  }
}

// The value families and listings rank a stored function by: exact where known, else an
// upper rank of the sampled estimate that is never negative.
TEST(ScoredFunctionRank, ExactElseNoBetterThanItsNoise) {
  ScoredFunction f;
  f.chi2 = -2e-6;  // a noise-corrected estimate below zero
  f.chi2_stderr = 5e-6;
  EXPECT_EQ(f.rank(), 5e-6);
  f.chi2_stderr = 0;
  EXPECT_EQ(f.rank(), 0.0);
  f.chi2 = 3e-5;
  f.chi2_stderr = 1e-6;
  EXPECT_EQ(f.rank(), 3e-5);
  f.chi2_exact = 1.5418e-5;
  EXPECT_EQ(f.rank(), 1.5418e-5);
}
