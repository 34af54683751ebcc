#include "evolver/store/store.hpp"

#include <SQLiteCpp/SQLiteCpp.h>
#include <sqlite3.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <thread>

#include "evolver/run/checkpoint_json.hpp"
#include "evolver/run/run_types_json.hpp"
#include "mixer/json_form.hpp"

namespace mixforge::evolver {
namespace {


nlohmann::json counters_json(const RunCounters& c) { return to_json(c); }
RunCounters counters_from(const nlohmann::json& j) { return counters_from_json(j); }

const char* const migrations[] = {
    // version 1
    R"SQL(
CREATE TABLE runs (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  config TEXT NOT NULL,
  state TEXT NOT NULL,
  created_at REAL NOT NULL,
  updated_at REAL NOT NULL,
  counters TEXT NOT NULL,
  current_samples INTEGER NOT NULL DEFAULT 0,
  next_leader_at INTEGER NOT NULL DEFAULT 0,
  sessions INTEGER NOT NULL DEFAULT 0,
  rng TEXT NOT NULL DEFAULT '[]',
  best TEXT,
  owner_pid INTEGER NOT NULL DEFAULT 0,
  error TEXT NOT NULL DEFAULT ''
);
CREATE TABLE pool (
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  slot INTEGER NOT NULL,
  program_id TEXT NOT NULL,
  program TEXT NOT NULL,
  width INTEGER NOT NULL,
  steps INTEGER NOT NULL,
  chi2 REAL NOT NULL,
  stderr REAL NOT NULL,
  samples INTEGER NOT NULL,
  exact INTEGER NOT NULL,
  born INTEGER NOT NULL,
  PRIMARY KEY (run_id, slot)
);
CREATE INDEX pool_program ON pool(program_id);
CREATE TABLE history (
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  elapsed_s REAL NOT NULL,
  tournaments INTEGER NOT NULL,
  scored INTEGER NOT NULL,
  best_chi2 REAL NOT NULL,
  best_exact INTEGER NOT NULL,
  PRIMARY KEY (run_id, seq)
);
CREATE TABLE hall_of_fame (
  run_id TEXT NOT NULL,
  program_id TEXT NOT NULL,
  program TEXT NOT NULL,
  width INTEGER NOT NULL,
  steps INTEGER NOT NULL,
  chi2 REAL NOT NULL,
  stderr REAL NOT NULL,
  samples INTEGER NOT NULL,
  exact INTEGER NOT NULL,
  elapsed_s REAL NOT NULL,
  tournaments INTEGER NOT NULL,
  recorded_at REAL NOT NULL,
  PRIMARY KEY (run_id, program_id)
);
CREATE INDEX hall_of_fame_rank ON hall_of_fame(width, chi2);
)SQL",
};

// Version 2: the resume intent moves from serve-state.json into the runs table (imported
// here, once, then the file is removed); pool rows carry their rank and kind set so pool
// pages are SQL; indexes in the listing orders of the pool and the hall of fame.
void migrate_to_2(SQLite::Database& db, const std::filesystem::path& data_dir) {
  db.exec(R"SQL(
ALTER TABLE runs ADD COLUMN resume_on_start INTEGER NOT NULL DEFAULT 0;
ALTER TABLE pool ADD COLUMN rank REAL NOT NULL DEFAULT 0;
ALTER TABLE pool ADD COLUMN kinds INTEGER NOT NULL DEFAULT 0;
UPDATE pool SET rank = CASE WHEN exact THEN chi2 ELSE max(chi2, stderr) END;
CREATE INDEX pool_rank ON pool(run_id, rank, program_id);
CREATE INDEX pool_born ON pool(run_id, born, program_id);
DROP INDEX hall_of_fame_rank;
CREATE INDEX hall_of_fame_rank ON hall_of_fame(width, exact DESC, chi2, recorded_at);
CREATE INDEX hall_of_fame_run_rank ON hall_of_fame(run_id, width, exact DESC, chi2, recorded_at);
)SQL");
  {
    SQLite::Statement rows(db, "SELECT run_id, slot, program FROM pool");
    SQLite::Statement set(db, "UPDATE pool SET kinds=? WHERE run_id=? AND slot=?");
    while (rows.executeStep()) {
      const mixer::Program p = mixer::program_from_json(nlohmann::json::parse(rows.getColumn(2).getString()));
      set.bind(1, static_cast<std::int64_t>(kind_mask(p)));
      set.bind(2, rows.getColumn(0).getString());
      set.bind(3, rows.getColumn(1).getInt64());
      set.exec();
      set.reset();
    }
  }
  const std::filesystem::path legacy = data_dir / "serve-state.json";
  std::ifstream in(legacy);
  if (!in) return;
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const std::exception&) {
    return;  // a damaged file only loses the intent to resume; the runs are all here
  }
  if (!j.is_object() || !j.contains("running") || !j["running"].is_array()) return;
  SQLite::Statement mark(db, "UPDATE runs SET resume_on_start=1 WHERE id=?");
  for (const auto& id : j["running"]) {
    if (!id.is_string()) continue;
    mark.bind(1, id.get<std::string>());
    mark.exec();
    mark.reset();
  }
}

// Version 3: users' Markdown notes on runs and functions. A run's note goes with the run;
// a function's note stays as long as the database (functions outlive their runs in the
// hall of fame).
const char* const migration_3 = R"SQL(
CREATE TABLE notes (
  subject TEXT NOT NULL CHECK (subject IN ('run', 'function')),
  id TEXT NOT NULL,
  text TEXT NOT NULL,
  version INTEGER NOT NULL,
  updated_at REAL NOT NULL,
  PRIMARY KEY (subject, id)
);
)SQL";

// Version 4: quality reports (mixforge quality, GET /functions/{id}/quality), computed on
// demand and kept per function and options key (which names the report's version, so a
// new version of the measures never reads an old report). Kept as long as the database,
// like function notes.
const char* const migration_4 = R"SQL(
CREATE TABLE quality_reports (
  function_id TEXT NOT NULL,
  options TEXT NOT NULL,
  report TEXT NOT NULL,
  computed_at REAL NOT NULL,
  PRIMARY KEY (function_id, options)
);
)SQL";

// Version 5: the islands of an island run (evolve --islands), as rank 0 last heard of
// them: a JSON array of IslandStatus, NULL for ordinary runs.
const char* const migration_5 = "ALTER TABLE runs ADD COLUMN islands TEXT;";

// Version 6: the last checkpoint of each other island of an island run (ranks > 0; rank
// 0's island is the run's own checkpoint), in the JSON form of evolver/run/checkpoint_json.hpp,
// so a resumed island run restarts every rank where it was.
const char* const migration_6 = R"SQL(
CREATE TABLE island_checkpoints (
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  rank INTEGER NOT NULL CHECK (rank > 0),
  checkpoint TEXT NOT NULL,
  tournaments INTEGER NOT NULL,
  updated_at REAL NOT NULL,
  PRIMARY KEY (run_id, rank)
);
)SQL";

// Version 7: the restart clocks of the run's checkpoint (checkpoint_json.hpp's clocks form),
// NULL where a checkpoint from before has none: its clocks start afresh at the resume.
const char* const migration_7 = "ALTER TABLE runs ADD COLUMN clocks TEXT;";

// Version 8: the seed programs' climbs of the run's checkpoint (a JSON array of
// ClimbStatus), NULL for runs without seed programs and checkpoints from before.
const char* const migration_8 = "ALTER TABLE runs ADD COLUMN climbs TEXT;";

// Version 9: the budget of the session that wrote the run's checkpoint and where it began
// (checkpoint_json.hpp's session form), so a run continued after a shutdown or a crash
// gets what is left of it. NULL before the run's first start and for checkpoints from
// before: the budget is then counted afresh at the resume, as it was.
const char* const migration_9 = "ALTER TABLE runs ADD COLUMN session TEXT;";

std::string order_sql(const PoolQuery& q) {
  const char* dir = q.descending ? " DESC" : "";
  switch (q.order) {
    case PoolQuery::Order::chi2: return std::string("rank") + dir + ", program_id";
    case PoolQuery::Order::born: return std::string("born") + dir + ", program_id";
    case PoolQuery::Order::steps: return std::string("steps") + dir + ", program_id";
  }
  return "program_id";
}

}  // namespace

struct Store::Impl {
  SQLite::Database db;
  explicit Impl(const std::string& path)
      : db(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE | SQLite::OPEN_FULLMUTEX) {}
};

Store::Store(const std::filesystem::path& data_dir) {
  std::filesystem::create_directories(data_dir);
  path_ = data_dir / "mixforge.db";
  // SQLite answers SQLITE_BUSY at once, without the busy handler, in a few cases that
  // connections opening a fresh file together meet (switching it to WAL while another
  // connection reads it, a read lock upgraded to a write lock): the whole opening is retried
  // until the busy timeout has passed. (Store.ConnectionsOpeningTogetherMigrateOnce failed
  // about one time in four before.)
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  for (int attempt = 0;; ++attempt) {
    try {
      open_and_migrate(data_dir);
      return;
    } catch (const SQLite::Exception& e) {
      const bool busy = (e.getErrorCode() & 0xff) == SQLITE_BUSY;
      if (!busy || std::chrono::steady_clock::now() >= deadline)
        throw std::runtime_error("store " + path_.string() + ": " + e.what());
      impl_.reset();
      std::this_thread::sleep_for(std::chrono::milliseconds(5 + 5 * std::min(attempt, 20)));
    }
  }
}

void Store::open_and_migrate(const std::filesystem::path& data_dir) {
  {
    impl_ = std::make_unique<Impl>(path_.string());
    auto& db = impl_->db;
    db.setBusyTimeout(10000);  // other processes (CLI beside a daemon) may hold the lock
    db.exec("PRAGMA journal_mode=WAL");
    // WAL + NORMAL: a commit survives a killed process (not necessarily a power cut).
    db.exec("PRAGMA synchronous=NORMAL");
    db.exec("PRAGMA foreign_keys=ON");
    const int latest = static_cast<int>(std::size(migrations));  // written as SQL
    std::error_code ec_ignored;
    // Other processes may open the same file at this moment: each step takes the write
    // lock first (BEGIN IMMEDIATE, waiting up to the busy timeout) and reads the version
    // inside its transaction, so a step another connection has done is never done twice.
    for (;;) {
      SQLite::Transaction t(db, SQLite::TransactionBehavior::IMMEDIATE);
      const int version = db.execAndGet("PRAGMA user_version").getInt();
      if (version > schema_version)
        throw std::runtime_error("database schema version " + std::to_string(version) +
                                 " is newer than this mixforge understands (" + std::to_string(schema_version) +
                                 ")");
      if (version == schema_version) break;  // the transaction rolls back: nothing to write
      if (version < latest)
        db.exec(migrations[version]);
      else if (version == 1)
        migrate_to_2(db, data_dir);
      else if (version == 2)
        db.exec(migration_3);
      else if (version == 3)
        db.exec(migration_4);
      else if (version == 4)
        db.exec(migration_5);
      else if (version == 5)
        db.exec(migration_6);
      else if (version == 6)
        db.exec(migration_7);
      else if (version == 7)
        db.exec(migration_8);
      else if (version == 8)
        db.exec(migration_9);
      db.exec("PRAGMA user_version=" + std::to_string(version + 1));
      t.commit();
      if (version == 1) std::filesystem::remove(data_dir / "serve-state.json", ec_ignored);
    }
  }
}

Store::~Store() = default;

void Store::create_run(const std::string& id, const RunConfig& config, double created_at) {
  SQLite::Statement q(impl_->db,
                      "INSERT INTO runs(id, name, config, state, created_at, updated_at, counters) "
                      "VALUES (?, ?, ?, 'created', ?, ?, ?)");
  q.bind(1, id);
  q.bind(2, config.name);
  q.bind(3, to_json(config).dump());
  q.bind(4, created_at);
  q.bind(5, created_at);
  q.bind(6, counters_json({}).dump());
  q.exec();
}

// After the run's last point (seq), in one statement per point; within the caller's transaction.
static void append_history(SQLite::Database& db, const std::string& id, const std::vector<HistoryPoint>& points) {
  if (points.empty()) return;
  SQLite::Statement last(db, "SELECT COALESCE(MAX(seq), -1) FROM history WHERE run_id=?");
  last.bind(1, id);
  last.executeStep();
  std::int64_t seq = last.getColumn(0).getInt64();
  SQLite::Statement ins(db,
                        "INSERT INTO history(run_id, seq, elapsed_s, tournaments, scored, best_chi2, "
                        "best_exact) VALUES (?,?,?,?,?,?,?)");
  for (const HistoryPoint& h : points) {
    ins.bind(1, id);
    ins.bind(2, ++seq);
    ins.bind(3, h.elapsed_s);
    ins.bind(4, static_cast<std::int64_t>(h.tournaments));
    ins.bind(5, static_cast<std::int64_t>(h.scored));
    ins.bind(6, h.best_chi2);
    ins.bind(7, h.best_exact ? 1 : 0);
    ins.exec();
    ins.reset();
  }
}

void Store::checkpoint(const std::string& id, RunState state, const Checkpoint& c,
                       const std::vector<HistoryPoint>& new_history, int owner_pid,
                       const std::string& error, std::optional<bool> resume_on_start) {
  auto& db = impl_->db;
  SQLite::Transaction t(db);
  const nlohmann::json rng = rng_states_to_json(c.rngs);
  {
    SQLite::Statement q(db,
                        "UPDATE runs SET state=?, updated_at=?, counters=?, current_samples=?, "
                        "next_leader_at=?, sessions=?, rng=?, best=?, owner_pid=?, error=?, "
                        "resume_on_start=COALESCE(?, resume_on_start), clocks=?, climbs=?, session=? WHERE id=?");
    q.bind(1, std::string(state_name(state)));
    q.bind(2, unix_now());
    q.bind(3, counters_json(c.counters).dump());
    q.bind(4, static_cast<std::int64_t>(c.current_samples));
    q.bind(5, static_cast<std::int64_t>(c.next_leader_at));
    q.bind(6, static_cast<std::int64_t>(c.sessions));
    q.bind(7, rng.dump());
    if (c.best)
      q.bind(8, to_json(*c.best).dump());
    else
      q.bind(8);
    q.bind(9, owner_pid);
    q.bind(10, error);
    if (resume_on_start)
      q.bind(11, *resume_on_start ? 1 : 0);
    else
      q.bind(11);
    const nlohmann::json clocks = clocks_to_json(c);
    if (clocks.is_null())
      q.bind(12);
    else
      q.bind(12, clocks.dump());
    if (c.climbs.empty()) {
      q.bind(13);
    } else {
      nlohmann::json climbs = nlohmann::json::array();
      for (const ClimbStatus& s : c.climbs) climbs.push_back(to_json(s));
      q.bind(13, climbs.dump());
    }
    if (c.session)
      q.bind(14, to_json(*c.session).dump());
    else
      q.bind(14);
    q.bind(15, id);
    if (q.exec() != 1) throw RunNotFound(id);
  }
  {
    SQLite::Statement del(db, "DELETE FROM pool WHERE run_id=?");
    del.bind(1, id);
    del.exec();
    SQLite::Statement ins(db,
                          "INSERT INTO pool(run_id, slot, program_id, program, width, steps, chi2, "
                          "stderr, samples, exact, born, rank, kinds) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)");
    for (std::size_t i = 0; i < c.pool.size(); ++i) {
      const Member& m = c.pool[i];
      ins.bind(1, id);
      ins.bind(2, static_cast<std::int64_t>(i));
      ins.bind(3, m.program.id());
      ins.bind(4, mixforge::mixer::to_json(m.program).dump());
      ins.bind(5, m.program.width());
      ins.bind(6, static_cast<int>(m.program.size()));
      ins.bind(7, m.estimate.chi2);
      ins.bind(8, m.estimate.stderr_);
      ins.bind(9, static_cast<std::int64_t>(m.estimate.samples));
      ins.bind(10, m.estimate.exact ? 1 : 0);
      ins.bind(11, static_cast<std::int64_t>(m.born));
      ins.bind(12, m.estimate.rank());
      ins.bind(13, static_cast<std::int64_t>(kind_mask(m.program)));
      ins.exec();
      ins.reset();
    }
  }
  append_history(db, id, new_history);
  t.commit();
}

void Store::set_state(const std::string& id, RunState state, int owner_pid, const std::string& error,
                      std::optional<bool> resume_on_start) {
  SQLite::Statement q(impl_->db,
                      "UPDATE runs SET state=?, owner_pid=?, error=?, updated_at=?, "
                      "resume_on_start=COALESCE(?, resume_on_start) WHERE id=?");
  q.bind(1, std::string(state_name(state)));
  q.bind(2, owner_pid);
  q.bind(3, error);
  q.bind(4, unix_now());
  if (resume_on_start)
    q.bind(5, *resume_on_start ? 1 : 0);
  else
    q.bind(5);
  q.bind(6, id);
  if (q.exec() != 1) throw RunNotFound(id);
}

void Store::add_history(const std::string& id, const std::vector<HistoryPoint>& points) {
  if (!run(id)) throw RunNotFound(id);
  SQLite::Transaction t(impl_->db);
  append_history(impl_->db, id, points);
  t.commit();
}

void Store::add_hall_of_fame(const std::vector<HallOfFameEntry>& entries) {
  if (entries.empty()) return;
  SQLite::Transaction t(impl_->db);
  SQLite::Statement ins(impl_->db,
                        "INSERT OR REPLACE INTO hall_of_fame(run_id, program_id, program, width, steps, "
                        "chi2, stderr, samples, exact, elapsed_s, tournaments, recorded_at) "
                        "VALUES (?,?,?,?,?,?,?,?,?,?,?,?)");
  for (const HallOfFameEntry& e : entries) {
    const ScoredFunction& f = e.function;
    ins.bind(1, e.run_id);
    ins.bind(2, f.id);
    ins.bind(3, mixforge::mixer::to_json(f.program).dump());
    ins.bind(4, f.width);
    ins.bind(5, f.steps);
    ins.bind(6, f.chi2);
    ins.bind(7, f.chi2_stderr);
    ins.bind(8, static_cast<std::int64_t>(f.samples));
    ins.bind(9, f.exact ? 1 : 0);
    ins.bind(10, e.elapsed_s);
    ins.bind(11, static_cast<std::int64_t>(e.tournaments));
    ins.bind(12, e.recorded_at);
    ins.exec();
    ins.reset();
  }
  t.commit();
}

// Configurations stored before seeds above 2^53-1 travelled as strings hold them as
// JSON integers (exact here): read them as the string form.
static nlohmann::json stored_config(const std::string& text) {
  nlohmann::json j = nlohmann::json::parse(text);
  if (j.contains("seed") && j["seed"].is_number_unsigned()) j["seed"] = seed_to_json(j["seed"].get<std::uint64_t>());
  return j;
}

static StoredRun run_from_row(SQLite::Statement& q) {
  StoredRun r;
  RunSummary& s = r.summary;
  s.id = q.getColumn(0).getString();
  s.name = q.getColumn(1).getString();
  s.config = run_config_from_json(stored_config(q.getColumn(2).getString()));
  s.state = state_from_name(q.getColumn(3).getString()).value_or(RunState::failed);
  s.created_at = q.getColumn(4).getDouble();
  s.updated_at = q.getColumn(5).getDouble();
  s.counters = counters_from(nlohmann::json::parse(q.getColumn(6).getString()));
  s.current_samples = static_cast<std::uint64_t>(q.getColumn(7).getInt64());
  if (!q.getColumn(8).isNull()) s.best = scored_function(member_from_json(nlohmann::json::parse(q.getColumn(8).getString())));
  r.owner_pid = q.getColumn(9).getInt();
  s.error = q.getColumn(10).getString();
  r.resume_on_start = q.getColumn(11).getInt() != 0;
  if (!q.getColumn(12).isNull())
    for (const auto& i : nlohmann::json::parse(q.getColumn(12).getString())) s.islands.push_back(island_status_from_json(i));
  return r;
}

static const char* const run_columns =
    "SELECT id, name, config, state, created_at, updated_at, counters, current_samples, best, "
    "owner_pid, error, resume_on_start, islands FROM runs";

void Store::set_islands(const std::string& id, const std::vector<IslandStatus>& islands) {
  nlohmann::json a = nlohmann::json::array();
  for (const IslandStatus& i : islands) a.push_back(to_json(i));
  SQLite::Statement q(impl_->db, "UPDATE runs SET islands=? WHERE id=?");
  q.bind(1, a.dump());
  q.bind(2, id);
  if (q.exec() == 0) throw RunNotFound(id);
}

void Store::put_island_checkpoint(const std::string& id, int rank, const Checkpoint& c) {
  SQLite::Statement q(impl_->db,
                      "INSERT INTO island_checkpoints(run_id, rank, checkpoint, tournaments, updated_at) "
                      "VALUES (?,?,?,?,?) ON CONFLICT(run_id, rank) DO UPDATE SET "
                      "checkpoint=excluded.checkpoint, tournaments=excluded.tournaments, "
                      "updated_at=excluded.updated_at");
  q.bind(1, id);
  q.bind(2, rank);
  q.bind(3, to_json(c).dump());
  q.bind(4, static_cast<std::int64_t>(c.counters.tournaments));
  q.bind(5, unix_now());
  try {
    q.exec();
  } catch (const SQLite::Exception& e) {
    if (!run(id)) throw RunNotFound(id);  // the foreign key refused it
    throw;
  }
}

std::map<int, Checkpoint> Store::island_checkpoints(const std::string& id) {
  SQLite::Statement q(impl_->db, "SELECT rank, checkpoint FROM island_checkpoints WHERE run_id=? ORDER BY rank");
  q.bind(1, id);
  std::map<int, Checkpoint> out;
  while (q.executeStep()) {
    const int rank = q.getColumn(0).getInt();
    try {
      out.emplace(rank, checkpoint_from_json(nlohmann::json::parse(q.getColumn(1).getString())));
    } catch (const std::exception& e) {
      throw std::runtime_error("run " + id + ", island " + std::to_string(rank) + ": stored checkpoint: " + e.what());
    }
  }
  return out;
}

std::vector<StoredRun> Store::runs() {
  SQLite::Statement q(impl_->db, std::string(run_columns) + " ORDER BY created_at, id");
  std::vector<StoredRun> out;
  while (q.executeStep()) out.push_back(run_from_row(q));
  return out;
}

std::optional<StoredRun> Store::run(const std::string& id) {
  SQLite::Statement q(impl_->db, std::string(run_columns) + " WHERE id=?");
  q.bind(1, id);
  if (!q.executeStep()) return std::nullopt;
  return run_from_row(q);
}

// One page of a filtered query and the number of rows the filter matches. `from_where` is
// " FROM table WHERE ..." with ? for the filter's values, which `bind` binds from index 1
// (returning the next index); `row` turns a result row into an item.
template <class Page, class Bind, class Row>
static Page query_page(SQLite::Database& db, const std::string& columns, const std::string& from_where,
                       const std::string& order_by, std::size_t limit, std::size_t offset, Bind bind, Row row) {
  Page page;
  {
    SQLite::Statement count(db, "SELECT COUNT(*)" + from_where);
    bind(count);
    count.executeStep();
    page.total = static_cast<std::size_t>(count.getColumn(0).getInt64());
  }
  SQLite::Statement q(db, "SELECT " + columns + from_where + " ORDER BY " + order_by + " LIMIT ? OFFSET ?");
  int k = bind(q);
  q.bind(k++, static_cast<std::int64_t>(std::min<std::size_t>(limit, std::size_t{INT64_MAX})));
  q.bind(k, static_cast<std::int64_t>(std::min<std::size_t>(offset, std::size_t{INT64_MAX})));
  while (q.executeStep()) page.items.push_back(row(q));
  return page;
}

static Member member_from_row(SQLite::Statement& q, int first) {
  Member m;
  m.program = mixer::program_from_json(nlohmann::json::parse(q.getColumn(first).getString()));
  m.hash = m.program.hash();
  m.estimate = {q.getColumn(first + 1).getDouble(), q.getColumn(first + 2).getDouble(),
                static_cast<std::uint64_t>(q.getColumn(first + 3).getInt64()), q.getColumn(first + 4).getInt() != 0};
  m.born = static_cast<std::uint64_t>(q.getColumn(first + 5).getInt64());
  return m;
}

PoolPage Store::pool_page(const std::string& id, const PoolQuery& pq) {
  std::string where = " FROM pool WHERE run_id=?";
  if (pq.min_steps) where += " AND steps>=?";
  if (pq.max_steps) where += " AND steps<=?";
  if (pq.kinds) where += " AND (kinds & ~?)=0";
  if (pq.uses_kind) where += " AND (kinds & ?)!=0";
  if (pq.max_chi2) where += " AND chi2<=?";
  if (pq.exact_only) where += " AND exact=1";
  auto bind_all = [&](SQLite::Statement& q) {
    int k = 1;
    q.bind(k++, id);
    if (pq.min_steps) q.bind(k++, *pq.min_steps);
    if (pq.max_steps) q.bind(k++, *pq.max_steps);
    if (pq.kinds) q.bind(k++, static_cast<std::int64_t>(kind_mask(*pq.kinds)));
    if (pq.uses_kind) q.bind(k++, std::int64_t{1} << static_cast<int>(*pq.uses_kind));
    if (pq.max_chi2) q.bind(k++, *pq.max_chi2);
    return k;
  };
  return query_page<PoolPage>(impl_->db, "program, chi2, stderr, samples, exact, born", where, order_sql(pq), pq.limit,
                              pq.offset, bind_all,
                              [](SQLite::Statement& q) { return scored_function(member_from_row(q, 0)); });
}

std::size_t Store::pool_count(const std::string& id) {
  SQLite::Statement q(impl_->db, "SELECT COUNT(*) FROM pool WHERE run_id=?");
  q.bind(1, id);
  q.executeStep();
  return static_cast<std::size_t>(q.getColumn(0).getInt64());
}

std::vector<std::string> Store::runs_to_resume() {
  SQLite::Statement q(impl_->db, "SELECT id FROM runs WHERE resume_on_start=1 ORDER BY created_at, id");
  std::vector<std::string> out;
  while (q.executeStep()) out.push_back(q.getColumn(0).getString());
  return out;
}

std::vector<Member> Store::pool(const std::string& id) {
  SQLite::Statement q(impl_->db,
                      "SELECT program, chi2, stderr, samples, exact, born FROM pool WHERE run_id=? "
                      "ORDER BY slot");
  q.bind(1, id);
  std::vector<Member> out;
  while (q.executeStep()) {
    Member m;
    m.program = mixer::program_from_json(nlohmann::json::parse(q.getColumn(0).getString()));
    m.hash = m.program.hash();
    m.estimate = {q.getColumn(1).getDouble(), q.getColumn(2).getDouble(),
                  static_cast<std::uint64_t>(q.getColumn(3).getInt64()), q.getColumn(4).getInt() != 0};
    m.born = static_cast<std::uint64_t>(q.getColumn(5).getInt64());
    out.push_back(std::move(m));
  }
  return out;
}

std::vector<ClimbStatus> Store::climbs(const std::string& id) {
  SQLite::Statement q(impl_->db, "SELECT climbs FROM runs WHERE id=?");
  q.bind(1, id);
  std::vector<ClimbStatus> out;
  if (!q.executeStep() || q.getColumn(0).isNull()) return out;
  for (const nlohmann::json& s : nlohmann::json::parse(q.getColumn(0).getString()))
    out.push_back(climb_status_from_json(s));
  return out;
}

std::optional<Checkpoint> Store::load_checkpoint(const std::string& id) {
  SQLite::Statement q(impl_->db,
                      "SELECT counters, current_samples, next_leader_at, sessions, rng, best, clocks, climbs, session "
                      "FROM runs "
                      "WHERE id=?");
  q.bind(1, id);
  if (!q.executeStep()) return std::nullopt;
  Checkpoint c;
  c.counters = counters_from(nlohmann::json::parse(q.getColumn(0).getString()));
  c.current_samples = static_cast<std::uint64_t>(q.getColumn(1).getInt64());
  c.next_leader_at = static_cast<std::uint64_t>(q.getColumn(2).getInt64());
  c.sessions = static_cast<std::uint64_t>(q.getColumn(3).getInt64());
  c.rngs = rng_states_from_json(nlohmann::json::parse(q.getColumn(4).getString()));
  if (!q.getColumn(5).isNull()) c.best = member_from_json(nlohmann::json::parse(q.getColumn(5).getString()));
  if (!q.getColumn(6).isNull()) clocks_from_json(nlohmann::json::parse(q.getColumn(6).getString()), c);
  if (!q.getColumn(7).isNull())
    for (const nlohmann::json& s : nlohmann::json::parse(q.getColumn(7).getString()))
      c.climbs.push_back(climb_status_from_json(s));
  if (!q.getColumn(8).isNull()) c.session = session_budget_from_json(nlohmann::json::parse(q.getColumn(8).getString()));
  c.pool = pool(id);
  return c;
}

std::vector<HistoryPoint> Store::history(const std::string& id) {
  SQLite::Statement q(impl_->db,
                      "SELECT elapsed_s, tournaments, scored, best_chi2, best_exact FROM history "
                      "WHERE run_id=? ORDER BY seq");
  q.bind(1, id);
  std::vector<HistoryPoint> out;
  while (q.executeStep())
    out.push_back({q.getColumn(0).getDouble(), static_cast<std::uint64_t>(q.getColumn(1).getInt64()),
                   static_cast<std::uint64_t>(q.getColumn(2).getInt64()), q.getColumn(3).getDouble(),
                   q.getColumn(4).getInt() != 0});
  return out;
}

static HallOfFameEntry hof_from_row(SQLite::Statement& q) {
  HallOfFameEntry e;
  e.run_id = q.getColumn(0).getString();
  Member m;
  m.program = mixer::program_from_json(nlohmann::json::parse(q.getColumn(1).getString()));
  m.hash = m.program.hash();
  m.estimate = {q.getColumn(2).getDouble(), q.getColumn(3).getDouble(),
                static_cast<std::uint64_t>(q.getColumn(4).getInt64()), q.getColumn(5).getInt() != 0};
  e.function = scored_function(m);
  e.elapsed_s = q.getColumn(6).getDouble();
  e.tournaments = static_cast<std::uint64_t>(q.getColumn(7).getInt64());
  e.recorded_at = q.getColumn(8).getDouble();
  return e;
}

HallOfFamePage Store::hall_of_fame(const HallOfFameQuery& hq) {
  std::string where = " FROM hall_of_fame WHERE 1";
  if (!hq.run_id.empty()) where += " AND run_id=?";
  if (hq.width) where += " AND width=?";
  if (hq.max_steps) where += " AND steps<=?";
  auto bind_all = [&](SQLite::Statement& q) {
    int k = 1;
    if (!hq.run_id.empty()) q.bind(k++, hq.run_id);
    if (hq.width) q.bind(k++, *hq.width);
    if (hq.max_steps) q.bind(k++, *hq.max_steps);
    return k;
  };
  // The order of the hall_of_fame_rank indexes: no sort, whatever the table's size.
  return query_page<HallOfFamePage>(
      impl_->db, "run_id, program, chi2, stderr, samples, exact, elapsed_s, tournaments, recorded_at", where,
      "width, exact DESC, chi2, recorded_at", hq.limit, hq.offset, bind_all,
      [](SQLite::Statement& q) { return hof_from_row(q); });
}

std::vector<HallOfFameEntry> Store::hall_of_fame(const std::string& run_id, std::size_t limit) {
  HallOfFameQuery q;
  q.run_id = run_id;
  q.limit = limit;
  return hall_of_fame(q).items;
}

std::optional<ScoredFunction> Store::function(const std::string& program_id) {
  {
    // The most precise estimate of it anywhere: exact first, then most samples.
    SQLite::Statement q(impl_->db,
                        "SELECT program, chi2, stderr, samples, exact, born FROM pool WHERE program_id=? "
                        "UNION ALL SELECT program, chi2, stderr, samples, exact, tournaments FROM "
                        "hall_of_fame WHERE program_id=? ORDER BY exact DESC, samples DESC LIMIT 1");
    q.bind(1, program_id);
    q.bind(2, program_id);
    if (q.executeStep()) {
      Member m;
      m.program = mixer::program_from_json(nlohmann::json::parse(q.getColumn(0).getString()));
      m.hash = m.program.hash();
      m.estimate = {q.getColumn(1).getDouble(), q.getColumn(2).getDouble(),
                    static_cast<std::uint64_t>(q.getColumn(3).getInt64()), q.getColumn(4).getInt() != 0};
      m.born = static_cast<std::uint64_t>(q.getColumn(5).getInt64());
      return scored_function(m);
    }
  }
  return std::nullopt;
}

void Store::remove_run(const std::string& id) {
  SQLite::Transaction t(impl_->db);
  for (const char* sql : {"DELETE FROM pool WHERE run_id=?", "DELETE FROM history WHERE run_id=?",
                          "DELETE FROM island_checkpoints WHERE run_id=?",
                          "DELETE FROM notes WHERE subject='run' AND id=?", "DELETE FROM runs WHERE id=?"}) {
    SQLite::Statement q(impl_->db, sql);
    q.bind(1, id);
    q.exec();
  }
  t.commit();
}

std::optional<Note> Store::note(NoteSubject subject, const std::string& id) {
  SQLite::Statement q(impl_->db, "SELECT text, version, updated_at FROM notes WHERE subject=? AND id=?");
  q.bind(1, std::string(subject_name(subject)));
  q.bind(2, id);
  if (!q.executeStep()) return std::nullopt;
  return Note{subject, id, q.getColumn(0).getString(), static_cast<std::uint64_t>(q.getColumn(1).getInt64()),
              q.getColumn(2).getDouble()};
}

std::optional<Note> Store::put_note(NoteSubject subject, const std::string& id, const std::string& text,
                                    std::optional<std::uint64_t> base_version, double now) {
  auto& db = impl_->db;
  // IMMEDIATE: the version read and the write are one step for every connection (a CLI
  // beside the daemon), so two saves from the same base never both succeed.
  SQLite::Transaction t(db, SQLite::TransactionBehavior::IMMEDIATE);
  if (subject == NoteSubject::run) {
    bool found = false;
    {
      SQLite::Statement exists(db, "SELECT 1 FROM runs WHERE id=?");
      exists.bind(1, id);
      found = exists.executeStep();
    }
    if (!found) return std::nullopt;  // deleted meanwhile: no orphan note
  }
  std::uint64_t current = 0;
  {
    SQLite::Statement q(db, "SELECT version FROM notes WHERE subject=? AND id=?");
    q.bind(1, std::string(subject_name(subject)));
    q.bind(2, id);
    if (q.executeStep()) current = static_cast<std::uint64_t>(q.getColumn(0).getInt64());
  }
  if (base_version && *base_version != current) throw NoteConflict(*base_version, current);
  SQLite::Statement w(db,
                      "INSERT INTO notes(subject, id, text, version, updated_at) VALUES (?, ?, ?, ?, ?) "
                      "ON CONFLICT(subject, id) DO UPDATE SET text=excluded.text, version=excluded.version, "
                      "updated_at=excluded.updated_at");
  w.bind(1, std::string(subject_name(subject)));
  w.bind(2, id);
  w.bind(3, text);
  w.bind(4, static_cast<std::int64_t>(current + 1));
  w.bind(5, now);
  w.exec();
  t.commit();
  return Note{subject, id, text, current + 1, now};
}

std::optional<StoredQualityReport> Store::quality_report(const std::string& function_id, const std::string& options) {
  SQLite::Statement q(impl_->db, "SELECT report, computed_at FROM quality_reports WHERE function_id=? AND options=?");
  q.bind(1, function_id);
  q.bind(2, options);
  if (!q.executeStep()) return std::nullopt;
  return StoredQualityReport{q.getColumn(0).getString(), q.getColumn(1).getDouble()};
}

void Store::put_quality_report(const std::string& function_id, const std::string& options, const std::string& report,
                               double computed_at) {
  SQLite::Statement q(impl_->db,
                      "INSERT INTO quality_reports(function_id, options, report, computed_at) VALUES (?, ?, ?, ?) "
                      "ON CONFLICT(function_id, options) DO UPDATE SET report=excluded.report, "
                      "computed_at=excluded.computed_at");
  q.bind(1, function_id);
  q.bind(2, options);
  q.bind(3, report);
  q.bind(4, computed_at);
  q.exec();
}

std::string Store::integrity_check() {
  return impl_->db.execAndGet("PRAGMA integrity_check").getString();
}

}  // namespace mixforge::evolver
