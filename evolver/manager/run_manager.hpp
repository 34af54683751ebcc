#pragma once
// The run manager: the one owner of all evolution runs of a data directory and of their
// store (SQLite, WAL). Everything the CLI and the HTTP daemon do with runs goes through
// here: the lifecycle (create, resume, pause, stop, remove, checkpoints) in run_manager.cpp,
// the read queries in RunQueries (run_queries.hpp). All public member functions are
// thread-safe. Results are plain value structs (run_types.hpp; their wire form, JSON, in
// run_types_json.hpp).
//
// Errors: RunNotFound (unknown id -> HTTP 404), RunStateError (e.g. resume a running run
// -> 409), ConfigError from run_config.hpp (-> 400), std::runtime_error for store failures.
//
// State: every change of a run's state is a transition of run_state_machine.hpp, made by
// the manager alone, and published as exactly one `state` event. Control calls on one run
// (resume, pause, stop, remove) are serialised by that run's own lock, so concurrent
// calls from many threads take effect one after the other, each legal or a RunStateError.
// A run's session (its thread in this process) makes the transitions it causes itself
// (finish, fail) under the same rules.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "avalanche/gpu/device.hpp"
#include "evolver/store/note.hpp"
#include "evolver/search/run_config.hpp"
#include "evolver/run/run_types.hpp"
#include "evolver/store/stored_quality.hpp"
#include "mixer/program.hpp"

namespace mixforge::jit { class Engine; }

namespace mixforge::evolver {

class Run;
class RunQueries;
struct Checkpoint;

class RunManager {
 public:
  struct Options {
    std::filesystem::path data_dir = "mixforge-data";  // holds mixforge.db
    // The JIT engine to score with; null: the manager makes one of its own
    // (Evaluator::with_own_engine), unless interpreter_only (tests: reference interpreter).
    jit::Engine* engine = nullptr;
    bool interpreter_only = false;
    // Exact scores and large sampled ones run on its GPU when it has one; under auto a
    // GPU that fails hands over to the CPU (avalanche/gpu/device.hpp, Evaluator::use_device).
    avalanche::DeviceSelection device;
    double checkpoint_interval_s = 5;
    double progress_interval_s = 1;
  };
  explicit RunManager(Options options);
  // Stops every active run after its final checkpoint.
  ~RunManager();
  RunManager(const RunManager&) = delete;
  RunManager& operator=(const RunManager&) = delete;

  // Validates (ConfigError), stores, and starts it unless start is false. Returns the id.
  std::string create(const RunConfig& config, bool start = true);
  // Continues a paused, stopped, finished, failed or created run from its last checkpoint
  // (also one whose process died). extra replaces the budget for this session, counted
  // from now. Without it a run marked to resume (its process ended while it ran: a daemon
  // shutdown or a crash) or paused continues what is left of its session's budget (the
  // start's or an earlier resume's); any other run gets its own budget, counted from now.
  void resume(const std::string& id, std::optional<Budget> extra = std::nullopt);
  // A running run; pausing a paused run changes nothing.
  void pause(const std::string& id);
  // A running, paused or created run. Cooperative: returns after the final checkpoint.
  void stop(const std::string& id);
  // In any state: stops it if active and deletes everything stored about it except
  // hall-of-fame entries.
  void remove(const std::string& id);
  // Blocks until the run is not active (or the timeout passes); true when it is not.
  bool wait(const std::string& id, std::optional<double> timeout_s = std::nullopt);

  // Resumes every run that was running when its process ended (stored resume_on_start):
  // a daemon calls this once at start-up. One outcome per run: error empty when resumed.
  struct Resumed {
    std::string run_id;
    std::string error;
  };
  std::vector<Resumed> resume_interrupted();
  // Final checkpoint of every active run, all at once. Unlike stop() it keeps a running
  // run marked to resume on the next start (and a paused run paused). The destructor
  // does the same.
  void shutdown();

  // Islands (evolver/islands/mpi_islands.hpp): calls fn with the run's Run while it is active and
  // not ending (false otherwise), for migration; fn must not call control functions.
  bool with_active_run(const std::string& id, const std::function<void(Run&)>& fn);
  // Hall-of-fame entries found elsewhere (another island of the run) into the store.
  void add_hall_of_fame(const std::vector<HallOfFameEntry>& entries);
  // What rank 0 knows of each island (RunSummary::islands; GET /runs/{id} shows them). The
  // run's best (get, list, progress, history) is from then on the best over its islands:
  // an island's best that beats it is published as a new_best event and a history point.
  void set_islands(const std::string& id, const std::vector<IslandStatus>& islands);
  // The best of the run's own search: for an island run, rank 0's island alone (get() gives
  // the best over all islands).
  std::optional<ScoredFunction> own_best(const std::string& id) const;
  // The last checkpoint of another rank's island (rank > 0), and all of them by rank: a
  // resumed island run restarts every rank from these (rank 0's is the run's own).
  void set_island_checkpoint(const std::string& id, int rank, const Checkpoint& checkpoint);
  std::map<int, Checkpoint> island_checkpoints(const std::string& id) const;

  // Reads: each of these is answered by RunQueries (run_queries.hpp), which reads through
  // the store and the runs active here; queries() gives them to code that only reads.
  const RunQueries& queries() const;
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
  std::vector<HallOfFameEntry> hall_of_fame(const std::string& run_id = {},
                                            std::size_t limit = 100) const;
  // Filtered and paged by the store (SQL, indexed): for listings of any size. RunNotFound
  // for a run_id that is neither a run nor in the hall of fame (a deleted run's entries stay).
  HallOfFamePage hall_of_fame(const HallOfFameQuery& query) const;
  // A function by Program::id(), from any pool or the hall of fame.
  std::optional<ScoredFunction> function(const std::string& function_id) const;
  // The pool in the original tool's text style: one function per block with its chi2.
  std::string dump(const std::string& id) const;

  // The note on a run or a function (empty, version 0, when none was saved). A run must
  // exist (RunNotFound); a function must be known or have a note (else nullopt).
  std::optional<Note> note(NoteSubject subject, const std::string& id) const;
  // Saves a note as its next version. RunNotFound; NoteConflict when base_version is given
  // and is not the current version; nullopt: an unknown function.
  std::optional<Note> set_note(NoteSubject subject, const std::string& id, const std::string& text,
                               std::optional<std::uint64_t> base_version);

  // Cached quality reports by function id and options key (Store::quality_report); the
  // manager neither computes nor checks them.
  std::optional<StoredQualityReport> quality_report(const std::string& function_id, const std::string& options) const;
  void put_quality_report(const std::string& function_id, const std::string& options, const std::string& report,
                          double computed_at);

  // run_id empty: events of every run. Callbacks run on an internal thread or on the
  // thread of a control call; keep them short, and do not call control functions
  // (resume, pause, stop, remove) from them. unsubscribe may be called from inside a
  // callback; after it returns the callback is not called again.
  std::uint64_t subscribe(const std::string& run_id, EventCallback callback);
  void unsubscribe(std::uint64_t subscription);

  const std::filesystem::path& data_dir() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace mixforge::evolver
