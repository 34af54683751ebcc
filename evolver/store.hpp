#pragma once
// Persistence of runs in SQLite (WAL) in the data directory: runs with their
// configuration and last checkpoint (pool, counters, RNG state, best), history, and the
// hall of fame. A checkpoint is one transaction: a kill at any moment leaves either the
// previous or the new checkpoint. Not thread-safe: the run manager serialises access.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "evolver/run.hpp"
#include "evolver/run_types.hpp"

namespace mixforge::evolver {

struct StoredRun {
  RunSummary summary;
  int owner_pid = 0;  // the process that last ran it (0: none)
};

class Store {
 public:
  // Opens (creating and migrating) data_dir/mixforge.db.
  explicit Store(const std::filesystem::path& data_dir);
  ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  static constexpr int schema_version = 1;
  const std::filesystem::path& path() const { return path_; }

  void create_run(const std::string& id, const RunConfig& config, double created_at);
  // Writes the whole checkpoint and the new history points in one transaction.
  void checkpoint(const std::string& id, RunState state, const Checkpoint& checkpoint,
                  const std::vector<HistoryPoint>& new_history, int owner_pid,
                  const std::string& error = {});
  void set_state(const std::string& id, RunState state, int owner_pid, const std::string& error = {});
  void add_hall_of_fame(const std::vector<HallOfFameEntry>& entries);

  std::vector<StoredRun> runs();
  std::optional<StoredRun> run(const std::string& id);
  // The last checkpoint (empty pool and no RNG state before the first one).
  std::optional<Checkpoint> load_checkpoint(const std::string& id);
  std::vector<Member> pool(const std::string& id);
  std::vector<HistoryPoint> history(const std::string& id);
  std::vector<HallOfFameEntry> hall_of_fame(const std::string& run_id, std::size_t limit);
  std::optional<ScoredFunction> function(const std::string& program_id);
  void remove_run(const std::string& id);
  // PRAGMA integrity_check: "ok" when the file is sound.
  std::string integrity_check();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::filesystem::path path_;
};

}  // namespace mixforge::evolver
