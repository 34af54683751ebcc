#pragma once
// One evolution run: the tournament loop on worker threads, early reject, leader
// ranking, cooperative stop and pause, consistent snapshots (checkpoints) and a
// new-best callback. Knows nothing of storage: the run manager persists snapshots.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "avalanche/evaluator.hpp"
#include "evolver/search/climb.hpp"
#include "evolver/search/early_reject.hpp"
#include "evolver/search/local_search.hpp"
#include "evolver/search/pool.hpp"
#include "evolver/search/random_program.hpp"
#include "evolver/search/restart.hpp"
#include "evolver/search/rng.hpp"
#include "evolver/search/score_cache.hpp"
#include "evolver/search/run_config.hpp"
#include "evolver/run/run_types.hpp"

namespace mixforge::evolver {

// The budget of the session that wrote a checkpoint (the start's or resume's) and the
// counters it began at: a run continued after a shutdown or a crash gets what is left of
// it, not a budget counted afresh.
struct SessionBudget {
  Budget budget;
  std::uint64_t start_tournaments = 0;
  double start_elapsed_s = 0;  // run time (RunCounters::elapsed_s) at the session's start
  friend bool operator==(const SessionBudget&, const SessionBudget&) = default;
  // What is left of it at `at` (none below zero); unset parts stay unset.
  Budget remaining(const RunCounters& at) const;
};

// Everything needed to continue a run exactly where the snapshot was taken.
struct Checkpoint {
  std::vector<Member> pool;
  RunCounters counters;
  std::uint64_t current_samples = 0;  // 0 = exact mode
  std::uint64_t next_leader_at = 0;
  std::vector<Rng::State> rngs;       // one per worker slot
  std::optional<Member> best;
  std::uint64_t sessions = 0;         // how often the run was started
  // The restart clocks, so a resumed run waits on where it stopped. Absent in checkpoints
  // from before they were kept: the clocks then start afresh at the resume.
  std::optional<ClockState> stagnation_clock;
  std::optional<ClockState> trap_clock;
  // The seed programs' climbs (RunConfig::seed_programs), in seed order; empty without seeds
  // and in checkpoints from before they were kept (their climbs then start at the seeds).
  std::vector<ClimbStatus> climbs;
  // The session's budget; absent before the run's first start and in checkpoints from
  // before it was kept (the budget is then counted afresh).
  std::optional<SessionBudget> session;
};

ScoredFunction scored_function(const Member& m);

// Locking rule: mu_ guards every member below it. A worker step takes mu_, decides on
// copies, releases it for scoring (the only expensive work, never under the lock) and
// takes it again to commit. Functions named *_locked run with mu_ held. Nothing outside
// the run is called with mu_ held: new-best callbacks are queued under the lock and
// called after it is released (announce), so a callback may take any lock of its own.
class Run {
 public:
  // Called on a worker thread, never with the run's lock held.
  using NewBestCallback = std::function<void(const HallOfFameEntry&)>;

  // from: continue a checkpoint; else a fresh run. The evaluators must outlive the run.
  // small_work (optional, usually an evaluator without an engine: the interpreted
  // counter) scores tasks too small to repay compiling a kernel: below small_work_limit
  // step evaluations. Both give the same integer counts, so the choice never changes a
  // result.
  Run(std::string id, RunConfig config, const avalanche::Evaluator& evaluator,
      std::optional<Checkpoint> from = std::nullopt, const avalanche::Evaluator* small_work = nullptr,
      double small_work_limit = default_small_work_limit);
  ~Run();  // requests a stop and joins
  Run(const Run&) = delete;
  Run& operator=(const Run&) = delete;

  // Starts the workers; the budget counts from now. Called once.
  void start(const Budget& budget, NewBestCallback on_new_best = {});
  // A requested stop also interrupts the background ranker's exact score in flight (its
  // result is dropped); a run that ends because its budget is spent lets it finish.
  void request_stop();
  // Test seam: called on the ranker's thread when an exact score of a leader begins. Set
  // before start().
  void on_exact_start(std::function<void()> hook) { exact_start_hook_ = std::move(hook); }
  // Called once, on the last worker's thread without the run's lock, when the run has
  // ended (so its owner need not poll for the end). Set before start().
  void on_end(std::function<void()> hook) { end_hook_ = std::move(hook); }
  // False when the run has already ended or is ending (stopped, budget spent, failed).
  bool pause();
  void unpause();
  bool paused() const;
  // True once every worker has returned (stopped, budget spent, or failed).
  bool done() const;
  bool wait(std::optional<double> timeout_s = std::nullopt);
  bool budget_spent() const;  // it ended because its budget was spent
  std::string error() const;  // non-empty when a worker failed

  // A consistent copy of the state, taken under the lock (microseconds to a few ms).
  Checkpoint snapshot() const;
  // History points and hall-of-fame entries since the last drain (the manager stores them).
  std::vector<HistoryPoint> drain_history();
  std::vector<HallOfFameEntry> drain_hall_of_fame();
  RunCounters counters() const;
  // Iterated local searches started so far (local_search.iterated; not checkpointed).
  std::uint64_t kicks() const;
  std::optional<Member> best() const;
  // The seed programs' climbs as they stand (empty without seed_programs).
  std::vector<ClimbStatus> climbs() const;
  std::uint64_t current_samples() const;
  std::size_t pool_size() const;
  // The longest time the lock was held by snapshot() (seconds): the checkpoint's pause.
  double max_snapshot_pause() const;

  const std::string& id() const { return id_; }
  const RunConfig& config() const { return config_; }

  // Migration between islands (evolver/islands/mpi_islands.hpp). Thread-safe.
  // The programs of the k best members (best first).
  std::vector<mixer::Program> emigrants(std::size_t k) const;
  // Programs from another island, scored here at the current sample count (unlocked).
  // Each meets a random member as in a tournament, and takes its place when the member is
  // the loser and the logistic acceptance removes it. Duplicates and programs of another
  // shape are skipped. Returns how many entered the pool.
  std::size_t immigrate(const std::vector<mixer::Program>& programs);

 private:
  struct ChildScore {
    Estimate estimate;
    bool rejected = false;
    std::uint64_t samples = 0;  // inputs evaluated
    std::uint64_t saved = 0;    // inputs an early reject did not need
  };

  // A tournament whose loser is to be replaced: what the unlocked breeding step needs.
  struct Breeding {
    Member parent;
    std::uint64_t loser = 0;
    std::uint64_t samples = 0;
    std::uint64_t generation = 0;  // pool_generation_ when it was held
    std::optional<mixer::Program> mate;  // a member of the winner's shape to cross with
  };
  struct Offspring {
    std::optional<Member> child;
    RunCounters counters;  // scored, early rejects, samples of the attempts
  };

  void worker(unsigned slot);
  void worker_loop(unsigned slot);
  // The worker's steps. Each is entered with lk held and returns with it held.
  void fill_step(std::unique_lock<std::mutex>& lk, Rng& rng);
  void tournament_step(std::unique_lock<std::mutex>& lk, Rng& rng);
  // One exact score of a seed program's climb (config_.seed_programs); its moves enter the
  // pool and may become the best.
  void climb_step(std::unique_lock<std::mutex>& lk);
  std::optional<std::size_t> climb_wanted_locked() const;  // a climb no worker is stepping
  bool climbs_pending_locked() const;                      // a climb not at its end
  double climb_exact(const mixer::Program& p) const;       // unlocked; may throw EvaluationCancelled
  double climb_check(const mixer::Program& p) const;       // the reference interpreter's score
  void enter_pool_locked(Member m);                        // in place of the worst when full
  // Unlocked: a child of the winner that passes the early reject (a few attempts), else
  // the best rejected one, fully scored.
  Offspring breed(const Breeding& b, Rng& rng) const;
  void commit_offspring_locked(const Breeding& b, Offspring o);
  bool pool_contains(std::uint64_t hash) const;  // takes mu_ briefly
  // Memetic operators (config_.memetic). Unlocked; they take mu_ briefly.
  std::optional<Member> local_search_child(const Member& parent, Offspring& out) const;
  mixer::Program fresh_program(Rng& rng) const;  // random, or a leading member's kinds
  std::optional<Estimate> cached_exact(const mixer::Program& p) const;
  bool exact_mode() const;
  std::uint64_t sample_seed(std::uint64_t samples) const;
  Estimate full_score(const mixer::Program& p, std::uint64_t samples, std::uint64_t* used) const;
  // The objective's terms of p (nullopt when the run has none); unlocked, thread-safe.
  std::optional<ObjectiveTerms> objective_of(const mixer::Program& p, double chi2) const;
  // Sets m.objective and m.estimate.penalty from objective_of.
  void with_objective(Member& m) const;
  // A child worse than this (parent_rank: the parent's Estimate::rank()) is rejected.
  double reject_threshold(double parent_rank) const;
  ChildScore score_child(const mixer::Program& p, double parent_rank, std::uint64_t samples) const;
  void consider_best_locked(const Member& m);
  // Calls the new-best callback for the queued entries with lk released; returns with it held.
  void announce(std::unique_lock<std::mutex>& lk);
  void add_history_locked();
  double elapsed_locked() const;
  bool budget_reached_locked() const;
  void leader_round(std::unique_lock<std::mutex>& lk);
  void restart_if_stagnant_locked();
  double stagnation_now_locked() const;  // the restart clock's time: tournaments or seconds
  void full_restart_locked();  // the pool, its sample count and both clocks start afresh
  void ranker_loop();
  Estimate exact_estimate(const mixer::Program& p);  // unlocked; may throw EvaluationCancelled
  void polish();                              // local search from best_, unlocked
  bool local_search_wanted_locked() const;
  LocalSearchOptions ranker_search_options(std::uint64_t seed) const;
  void count_neighbours_locked(const LocalSearch& ls, std::uint64_t& seen);
  bool exact_done_locked(std::uint64_t hash) const;  // scored (or being scored) by the ranker
  // Iterated local search (local_search.iterated): once best_ is a local optimum, searches
  // from kicked copies of it and from the pool's leaders, on sampled evidence.
  bool kick_wanted_locked() const;
  void start_kick_locked();
  void kick_search();  // unlocked, on the ranker's thread
  double estimated_exact_seconds_locked() const;


  const std::string id_;
  const RunConfig config_;
  const avalanche::Evaluator& evaluator_;
  const avalanche::Evaluator* small_work_;
  double small_work_limit_;
  const avalanche::Evaluator& pick(const mixer::Program& p, std::uint64_t inputs) const;
  ProgramShape shape_;

  mutable std::mutex mu_;
  std::condition_variable cv_;  // pause/stop changes, worker exits
  Pool pool_;
  RunCounters counters_;
  std::uint64_t current_samples_ = 0;
  std::uint64_t next_leader_at_ = 0;
  bool ranking_ = false;  // a worker is re-scoring leaders
  std::vector<Rng::State> rngs_;
  std::optional<Member> best_;
  std::uint64_t sessions_ = 0;
  std::vector<HistoryPoint> history_;
  std::vector<HallOfFameEntry> hall_of_fame_;
  std::vector<HallOfFameEntry> announce_;  // new bests not yet passed to the callback
  std::size_t pending_ = 0;  // pool slots being filled by workers
  std::size_t breeding_ = 0;  // tournaments whose child is being bred (their loser not yet removed)
  std::size_t pool_target_ = 0;
  // Exact scores by hash (thread-safe). Not checkpointed: it changes only how long a score
  // takes, never a result or a counter.
  mutable ScoreCache cache_;
  std::vector<Member> exact_queue_;        // leaders waiting for the background ranker
  std::vector<std::uint64_t> exact_done_;  // hashes the ranker scored (or is scoring)
  bool exact_unaffordable_ = false;        // exact scores would take too long here
  std::atomic<bool> exact_cancel_{false};  // a requested stop: drop the exact score in flight
  bool exact_running_ = false;             // the ranker is computing an exact score
  std::function<void()> exact_start_hook_;
  std::function<void()> end_hook_;
  double exact_seconds_ = 0;               // measured time of one exact score (smoothed)
  std::unique_ptr<LocalSearch> local_search_;  // the ranker's; around best_ (or what it was)
  std::uint64_t local_neighbours_seen_ = 0;    // of local_search_'s count, already in counters_
  std::unique_ptr<LocalSearch> kicked_;        // the ranker's iterated search (sampled centre)
  std::uint64_t kicked_neighbours_seen_ = 0;
  int kicked_moves_ = 0;
  std::uint64_t kicks_ = 0;                    // iterated searches started
  Rng ranker_rng_;                             // kicks and starts (the ranker is asynchronous anyway)
  StagnationClock stagnation_;                 // the pool's, for restarts
  StagnationClock trap_clock_;                 // the pool's while coarse, for trap restarts
  bool clocks_live_ = false;  // restored from the checkpoint or started: snapshots keep them
  std::uint64_t pool_generation_ = 0;          // full restarts in this session
  Rng migration_rng_;                          // immigrants' tournaments (not checkpointed)
  // A seed program's climb: its status (shown, checkpointed) and the climb itself, stepped
  // by one worker at a time (busy) without the lock; the status changes under it.
  struct SeedClimb {
    ClimbStatus status;
    std::optional<Climb> climb;
    std::uint64_t moves_before = 0, scored_before = 0;  // of the climb before it (a resume)
    bool busy = false;
  };
  std::vector<SeedClimb> climbs_;

  // Session.
  Budget budget_;
  std::optional<SessionBudget> session_budget_;  // this session's once started, else the checkpoint's
  std::uint64_t session_start_tournaments_ = 0;
  double session_start_elapsed_ = 0;
  std::chrono::steady_clock::time_point session_start_;
  NewBestCallback on_new_best_;
  bool stop_ = false;
  bool paused_ = false;
  bool budget_spent_ = false;
  std::string error_;
  unsigned running_workers_ = 0;
  std::vector<std::thread> threads_;
  mutable double max_snapshot_pause_ = 0;
  std::chrono::steady_clock::time_point pause_started_;
  double paused_seconds_ = 0;
};

}  // namespace mixforge::evolver
