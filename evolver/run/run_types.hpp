#pragma once
// The value types of runs (summaries, progress, pool pages, history, hall of fame, events),
// shared by the run, the store and the run manager. Their wire form (JSON) is in
// run_types_json.hpp.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "evolver/search/objective.hpp"
#include "evolver/search/pool_query.hpp"
#include "evolver/search/run_config.hpp"
#include "mixer/program.hpp"

namespace mixforge::evolver {

enum class RunState { created, running, paused, stopped, finished, failed };
// "created", "running", "paused", "stopped" (by request), "finished" (budget spent), "failed".
std::string_view state_name(RunState state);
// Wall-clock seconds since the Unix epoch: the time stamps stored with runs and entries.
double unix_now();
// A fresh id: the prefix and 11 random hex digits ("r..." runs, "b..." bakes).
std::string random_id(char prefix);
std::optional<RunState> state_from_name(std::string_view name);

class RunNotFound : public std::runtime_error {
 public:
  explicit RunNotFound(const std::string& id) : std::runtime_error("no run with id " + id) {}
};
class RunStateError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A program with its best known score.
struct ScoredFunction {
  std::string id;              // Program::id()
  mixer::Program program;
  std::string text;            // C-like form (format_program)
  int width = 0;
  int steps = 0;
  double chi2 = 0;             // the best estimate: exact, else noise-corrected sampled
  double chi2_stderr = 0;      // standard error of chi2 (0 when exact)
  std::uint64_t samples = 0;   // inputs behind chi2 (2^n when exact)
  bool exact = false;
  std::optional<double> chi2_exact;
  double bias = 0;             // hash-prospector's unit, from chi2
  std::uint64_t born = 0;      // the run's tournament count when it entered the pool
  // The run objective's terms (evolver/search/objective.hpp) when its run has one and they are
  // known: live results, and stored hall-of-fame entries whose terms were cached.
  std::optional<ObjectiveTerms> objective = std::nullopt;
  // The value to rank by (as Estimate::rank): the exact chi2, else max(chi2, its standard
  // error, 0), so a sampled estimate lost in its own noise (even below zero) never looks
  // better than it can be shown to be; plus the objective's penalty when known.
  double rank() const {
    const double penalty = objective ? objective->penalty : 0.0;
    if (chi2_exact) return *chi2_exact + penalty;
    if (exact) return chi2 + penalty;
    return std::max({chi2, chi2_stderr, 0.0}) + penalty;
  }
};

struct RunCounters {
  std::uint64_t tournaments = 0;
  std::uint64_t removals = 0;       // tournaments whose loser was removed
  std::uint64_t scored = 0;         // programs scored (children, fresh, rejected included)
  std::uint64_t early_rejects = 0;  // children dropped after a partial score
  std::uint64_t samples = 0;        // inputs evaluated by the search (not the leader ranking)
  std::uint64_t samples_saved = 0;  // inputs early rejects did not need
  std::uint64_t exact_scored = 0;   // exact scores by the leader ranking and local search
  std::uint64_t local_neighbours = 0;    // neighbours local search compared on samples
  std::uint64_t local_improvements = 0;  // moves local search confirmed exactly
  std::uint64_t restarts = 0;            // partial re-seeds of a stagnant pool
  double elapsed_s = 0;             // running time, summed over all sessions of the run
};

// One island of an island run (evolver/islands/mpi_islands.hpp) as rank 0 last heard of it.
struct IslandStatus {
  int rank = 0;
  std::string host;  // the rank's machine (MPI processor name); empty in runs stored before it was kept
  RunCounters counters;
  std::optional<ScoredFunction> best;
  std::uint64_t migrants_sent = 0, migrants_received = 0, migrants_accepted = 0;
  std::uint64_t bests_reported = 0;  // hall-of-fame entries sent to rank 0
  bool finished = false;             // sent its final report
  bool lost = false;                 // rank 0 heard nothing for the rank timeout
  // Tournaments of the island's last stored checkpoint, where a resumed run restarts it
  // (0: none stored yet).
  std::uint64_t checkpoint_tournaments = 0;
};

struct RunSummary {
  std::string id;
  std::string name;
  RunState state = RunState::created;
  RunConfig config;
  double created_at = 0;  // unix seconds
  double updated_at = 0;  // last checkpoint
  RunCounters counters;
  std::uint64_t current_samples = 0;  // sample count of a full score now (0 = exact)
  std::optional<ScoredFunction> best;  // ranked by exact chi2 where n <= 32
  std::string error;                   // why a run failed
  std::vector<IslandStatus> islands;   // island runs only (rank 0 first)
};

// The exact climb of one of a run's seed programs (RunConfig::seed_programs): what the
// run's progress shows and its checkpoint keeps (a resumed climb starts again around centre).
struct ClimbStatus {
  std::size_t seed = 0;                  // index in seed_programs
  mixer::Program start;                  // that seed program
  std::optional<mixer::Program> centre;  // none before the seed's exact score
  double chi2_exact = 0;                 // the centre's
  std::uint64_t moves = 0;               // centres moved to
  std::uint64_t scored = 0;              // exact scores, the seed's included
  bool pairs = false;                    // among the centre's pairs of moves (else its single moves)
  std::uint64_t position = 0;            // of the centre's neighbourhood, passed so far
  std::uint64_t neighbourhood = 0;       // programs in it
  bool done = false;                     // a local optimum of one and two moves
};

// Sent about once a second while a run is active.
struct Progress {
  std::string run_id;
  RunState state = RunState::created;
  RunCounters counters;
  double tournaments_per_s = 0;  // over the last interval
  double scored_per_s = 0;
  double early_reject_rate = 0;  // early_rejects / scored, whole run
  std::uint64_t current_samples = 0;
  std::size_t pool_size = 0;
  std::optional<ScoredFunction> best;
  // The longest time a checkpoint held the search's lock (copying the state; the disk
  // write happens outside it), seconds.
  double checkpoint_pause_max_s = 0;
  std::vector<ClimbStatus> climbs;  // runs with seed programs
};

struct HistoryPoint {
  double elapsed_s = 0;
  std::uint64_t tournaments = 0;
  std::uint64_t scored = 0;
  double best_chi2 = 0;
  bool best_exact = false;
};

struct HallOfFameEntry {
  ScoredFunction function;
  std::string run_id;
  double elapsed_s = 0;            // run time when it became the run's best
  std::uint64_t tournaments = 0;
  double recorded_at = 0;          // unix seconds
};

struct PoolPage {
  std::size_t total = 0;  // matches before paging
  std::vector<ScoredFunction> items;
};

// Hall-of-fame listings: ordered by width, exact scores first, then chi2 (best first),
// then time; filtered and paged by the store (an index serves the order).
struct HallOfFameQuery {
  std::string run_id;              // empty: every run
  std::optional<int> width;
  std::optional<int> max_steps;
  std::size_t offset = 0;
  std::size_t limit = 100;
};
struct HallOfFamePage {
  std::size_t total = 0;  // matches before paging
  std::vector<HallOfFameEntry> items;
};

struct RunEvent {
  enum class Type { progress, new_best, state, deleted };  // deleted: the last event of a run
  Type type = Type::progress;
  std::string run_id;
  Progress progress;                  // for every type: the run's latest progress
  std::optional<ScoredFunction> best;  // new_best: the new best
  RunState state = RunState::created;  // state: the new state
};
using EventCallback = std::function<void(const RunEvent&)>;

std::optional<PoolQuery::Order> pool_order_from_name(std::string_view name);

}  // namespace mixforge::evolver
