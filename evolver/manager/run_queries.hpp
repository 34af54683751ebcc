#pragma once
// The run manager's read queries: listings of runs, progress, pools, leaders, history, the
// hall of fame, stored functions, notes, cached quality reports. They read through the store
// and the runs active in this process, and change nothing: starting, pausing, resuming,
// stopping, deleting and checkpointing runs is RunManager's (run_manager.hpp), which owns the
// runs and these queries, and answers each of them through here. Thread-safe.
//
// Errors: RunNotFound (unknown id), std::runtime_error for store failures.
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "evolver/run/run_types.hpp"
#include "evolver/store/note.hpp"
#include "evolver/store/stored_quality.hpp"

namespace mixforge::evolver {

struct Checkpoint;
struct RunRegistry;

class RunQueries {
 public:
  explicit RunQueries(const RunRegistry& runs) : runs_(runs) {}

  std::vector<RunSummary> list() const;
  RunSummary get(const std::string& id) const;
  bool active(const std::string& id) const;
  // Latest progress (also for inactive runs: from the store).
  Progress progress(const std::string& id) const;
  PoolPage pool(const std::string& id, const PoolQuery& query) const;
  std::optional<ScoredFunction> best(const std::string& id) const;
  // The run's best few, ranked by exact chi2 where known.
  std::vector<ScoredFunction> leaders(const std::string& id, std::size_t count = 10) const;
  // max_points > 0 thins the history evenly (first and last kept).
  std::vector<HistoryPoint> history(const std::string& id, std::size_t max_points = 0) const;
  // Empty run_id: all runs. Ordered by exact chi2 within a width, best first.
  std::vector<HallOfFameEntry> hall_of_fame(const std::string& run_id = {}, std::size_t limit = 100) const;
  // Filtered and paged by the store (SQL, indexed): for listings of any size. RunNotFound
  // for a run_id that is neither a run nor in the hall of fame (a deleted run's entries stay).
  HallOfFamePage hall_of_fame(const HallOfFameQuery& query) const;
  // A function by Program::id(), from any pool or the hall of fame: the most precise record.
  std::optional<ScoredFunction> function(const std::string& function_id) const;
  // The pool in the original tool's text style: one function per block with its chi2.
  std::string dump(const std::string& id) const;
  // The note on a run or a function (empty, version 0, when none was saved). A run must
  // exist (RunNotFound); a function must be known or have a note (else nullopt).
  std::optional<Note> note(NoteSubject subject, const std::string& id) const;
  std::optional<StoredQualityReport> quality_report(const std::string& function_id, const std::string& options) const;

  // Island runs: the best of the run's own search (rank 0's island alone), and the last
  // checkpoint of each other rank's island.
  std::optional<ScoredFunction> own_best(const std::string& id) const;
  std::map<int, Checkpoint> island_checkpoints(const std::string& id) const;

 private:
  const RunRegistry& runs_;
};

}  // namespace mixforge::evolver
