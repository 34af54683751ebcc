#pragma once
// Persistence of runs in SQLite (WAL) in the data directory: runs with their
// configuration and last checkpoint (pool, counters, RNG state, best), history, and the
// hall of fame. A checkpoint is one transaction: a kill at any moment leaves either the
// previous or the new checkpoint. Not thread-safe: the run manager serialises access.
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "evolver/store/note.hpp"
#include "evolver/run/run.hpp"
#include "evolver/run/run_types.hpp"
#include "evolver/store/stored_quality.hpp"

namespace mixforge::evolver {

struct StoredRun {
  RunSummary summary;
  int owner_pid = 0;  // the process that last ran it (0: none)
  // The run was running when its process ended (killed, or a daemon shut down): a daemon
  // resumes it when it starts. Set by start/resume, cleared by pause, stop on request,
  // finish and failure. The one record of that intent (it replaced serve-state.json).
  bool resume_on_start = false;
};

class Store {
 public:
  // Opens (creating and migrating) data_dir/mixforge.db.
  explicit Store(const std::filesystem::path& data_dir);
  ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  // 2: runs.resume_on_start (serve-state.json imported), pool.kinds, paging indexes.
  // 3: notes. 4: quality_reports. 5: runs.islands. 6: island_checkpoints. 7: runs.clocks.
  // 8: runs.climbs (the seed programs' climbs). 9: runs.session (the session's budget).
  static constexpr int schema_version = 9;
  const std::filesystem::path& path() const { return path_; }

  void create_run(const std::string& id, const RunConfig& config, double created_at);
  // Writes the whole checkpoint and the new history points in one transaction.
  // resume_on_start: nullopt leaves it as it is.
  void checkpoint(const std::string& id, RunState state, const Checkpoint& checkpoint,
                  const std::vector<HistoryPoint>& new_history, int owner_pid,
                  const std::string& error = {}, std::optional<bool> resume_on_start = std::nullopt);
  void set_state(const std::string& id, RunState state, int owner_pid, const std::string& error = {},
                 std::optional<bool> resume_on_start = std::nullopt);
  void add_hall_of_fame(const std::vector<HallOfFameEntry>& entries);
  // History points after the run's last ones, outside a checkpoint (an island run's best
  // reported by another island after rank 0's own island has ended). RunNotFound.
  void add_history(const std::string& id, const std::vector<HistoryPoint>& points);
  // The islands of an island run (RunSummary::islands), replaced whole. RunNotFound.
  void set_islands(const std::string& id, const std::vector<IslandStatus>& islands);
  // The last checkpoint of island `rank` (> 0) of an island run, replaced whole. RunNotFound.
  void put_island_checkpoint(const std::string& id, int rank, const Checkpoint& checkpoint);
  // Every stored island checkpoint of the run, by rank (empty for ordinary runs).
  std::map<int, Checkpoint> island_checkpoints(const std::string& id);

  std::vector<StoredRun> runs();
  std::optional<StoredRun> run(const std::string& id);
  // The last checkpoint (empty pool and no RNG state before the first one).
  // The seed programs' climbs of the run's last checkpoint (empty: none, or no such run).
  std::vector<ClimbStatus> climbs(const std::string& id);
  std::optional<Checkpoint> load_checkpoint(const std::string& id);
  std::vector<Member> pool(const std::string& id);
  // Filtered, ordered and paged in SQL.
  PoolPage pool_page(const std::string& id, const PoolQuery& query);
  std::size_t pool_count(const std::string& id);
  std::vector<HistoryPoint> history(const std::string& id);
  HallOfFamePage hall_of_fame(const HallOfFameQuery& query);
  std::vector<HallOfFameEntry> hall_of_fame(const std::string& run_id, std::size_t limit);
  // Ids of runs marked resume_on_start, oldest first.
  std::vector<std::string> runs_to_resume();
  std::optional<ScoredFunction> function(const std::string& program_id);
  // Removes the run with its pool, history and note (its hall-of-fame entries stay).
  void remove_run(const std::string& id);
  std::optional<Note> note(NoteSubject subject, const std::string& id);
  // Saves the text as the next version. nullopt: the run does not exist (function notes are
  // not checked here). NoteConflict: base_version is given and is not the current version.
  std::optional<Note> put_note(NoteSubject subject, const std::string& id, const std::string& text,
                               std::optional<std::uint64_t> base_version, double now);
  // The cached quality report of a function for an options key (quality_cache_key), if any.
  std::optional<StoredQualityReport> quality_report(const std::string& function_id, const std::string& options);
  // Stores (or replaces) it.
  void put_quality_report(const std::string& function_id, const std::string& options, const std::string& report,
                          double computed_at);
  // PRAGMA integrity_check: "ok" when the file is sound.
  std::string integrity_check();

 private:
  void open_and_migrate(const std::filesystem::path& data_dir);  // one attempt
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::filesystem::path path_;
};

}  // namespace mixforge::evolver
