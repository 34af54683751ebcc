#pragma once
// Internal to the run manager (evolver/manager/): what its lifecycle (RunManager,
// run_manager.cpp) and its read queries (RunQueries, run_queries.cpp) share. The store under
// its lock, the runs active in this process under theirs, and how a stored run reads
// together with its live session. RunManager::Impl is a RunRegistry; the queries only read it.
#include <condition_variable>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "evolver/run/run.hpp"
#include "evolver/run/run_types.hpp"
#include "evolver/store/store.hpp"

namespace mixforge::evolver {

// Which of two bests of one run is the better, as a run ranks its own (Run's best): an exact
// score outranks an estimate, else the lower rank (the objective's total where known).
bool better(const ScoredFunction& a, const ScoredFunction& b);
bool better(const HistoryPoint& a, const HistoryPoint& b);
std::optional<ScoredFunction> best_of(std::optional<ScoredFunction> a, const std::optional<ScoredFunction>& b);
// The best any island of an island run has reported (nullopt for an ordinary run).
std::optional<ScoredFunction> islands_best(const std::vector<IslandStatus>& islands);

struct RunRegistry {
  // A run with a session in this process (its thread).
  struct Active {
    // The run goes first: its last worker calls the manager's wake-up (m, cv) after the run
    // is done, and the run's destructor joins that worker. Members are destroyed in reverse
    // order, so without this m and cv went before the run (TSan, DurabilityE2E).
    ~Active() { run.reset(); }
    std::unique_ptr<Run> run;
    std::thread session;
    std::mutex join_mu;
    std::mutex persist;
    std::mutex m;  // the fields below
    std::condition_variable cv;
    bool wake = false;  // new hall-of-fame entries, or a stop
    RunState state = RunState::running;
    bool ending = false;          // the session has claimed its final state
    bool stop_requested = false;  // by stop(), remove() or shutdown()
    bool suspend = false;         // by shutdown(): keep the resume intent and a pause
    bool session_done = false;
    Progress progress;
    // Island runs (set_islands): the best the islands have reported, and each time it got
    // better, at the run's own clock: a history point where it beat the run's best (`news`)
    // and, for the run's later points, a floor (their best is never worse than it).
    struct Elsewhere {
      HistoryPoint point;
      bool news = false;
    };
    std::optional<ScoredFunction> elsewhere;
    std::vector<Elsewhere> elsewhere_steps;
    std::size_t elsewhere_stored = 0;  // steps already merged into the stored history

    // The state and whether the session is ending, read together.
    std::pair<RunState, bool> state_and_ending() {
      std::lock_guard lk(m);
      return {state, ending || session_done};
    }
  };

  explicit RunRegistry(std::filesystem::path data_dir);

  const std::filesystem::path data_dir;  // holds mixforge.db
  const int pid;                         // this process

  mutable std::mutex store_mu;
  std::unique_ptr<Store> store;

  mutable std::mutex mu;  // active
  std::map<std::string, std::shared_ptr<Active>> active;

  std::shared_ptr<Active> find_active(const std::string& id) const;
  // The stored run; RunNotFound.
  StoredRun stored(const std::string& id) const;
  // Running or paused in a process that is still alive (another CLI or daemon): one
  // that holds its lease on this data directory.
  bool owned_elsewhere(const StoredRun& r) const;
  // The state of a run that has no session in this process. "running" in the store means
  // its process ended without a final checkpoint: it is resumable, i.e. stopped. A
  // paused run stays paused: its checkpoint is where it was paused.
  RunState resting_state(const StoredRun& r) const;
  // A session that is neither ending nor done.
  static bool live(Active& a);
  // The live pool of an active run, else the stored one; RunNotFound.
  std::vector<Member> pool_of(const std::string& id) const;
  // An island run's best is the best over its islands: rank 0's own (this run) and what the
  // others reported (RunSummary::islands, stored by set_islands), so that it is the best of
  // the run from the moment rank 0 hears of it, not once a migrant has brought it here.
  RunSummary summary(const StoredRun& r) const;
  // The run as this process's search sees it: for an island run, rank 0's island alone.
  RunSummary own_summary(const StoredRun& r) const;
};

}  // namespace mixforge::evolver
