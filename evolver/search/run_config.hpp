#pragma once
// The configuration of one evolution run: a value type, read from and written to the
// JSON document described by schema/run.schema.json.
#include <array>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "evolver/search/objective.hpp"
#include "mixer/program.hpp"
#include "mixer/step.hpp"

namespace mixforge::evolver {

// A configuration that breaks the schema or a cross-field rule. field() is the JSON
// path of the offending value ("early_reject.margin", "kind_sequence[2]", or "(root)").
class ConfigError : public std::runtime_error {
 public:
  ConfigError(std::string field, const std::string& message)
      : std::runtime_error(field + ": " + message), field_(std::move(field)) {}
  const std::string& field() const { return field_; }

 private:
  std::string field_;
};

// Relative weights of the five mutations (need not sum to 1; 0 disables one).
struct MutationWeights {
  double constant_small = 4;  // nudge a constant or shift amount
  double constant_large = 2;  // replace a constant or shift amount by a fresh value
  double swap = 1;            // swap two steps
  double remove = 1;          // remove a step (not below min_steps)
  double insert = 1;          // insert a random step (not above max_steps)
};

// A child is scored with a few samples first and dropped at once when, with the given
// one-sided confidence, its noise-corrected chi2 exceeds parent_chi2 * (1 + margin).
struct EarlyReject {
  bool enabled = true;
  double margin = 0.5;
  double confidence = 0.999;
  std::uint64_t first_samples = 1u << 10;  // stage 0
  unsigned growth = 4;                     // samples multiply by this per stage
};

// How precisely programs are scored.
struct Precision {
  // Widths up to this are always scored exactly (cheap: 2^n inputs).
  int exact_max_width = 16;
  // Sampled scoring: the sample count of a full score starts here and grows (x4) while
  // the pool's best chi2 is below noise_ratio * noise floor (n^2 / 2N), up to max_samples.
  std::uint64_t initial_samples = 1u << 14;
  std::uint64_t max_samples = 1u << 22;
  double noise_ratio = 1.0;
  // Leader ranking: the best `leaders` pool members are re-scored at growing N, and
  // (n <= 32) exactly, every leader_interval tournaments.
  int leaders = 4;
  std::uint64_t leader_interval = 2000;
  bool exact_leaders = true;
  // Exact scores stop when one takes longer than this (measured); the best is then the
  // most precise estimate.
  double exact_max_seconds = 120;
};

// Local search around the run's exact best (n <= 32, sampled runs): see
// evolver/search/local_search.hpp. Runs on the background ranker's thread.
struct LocalSearchConfig {
  bool enabled = true;
  std::uint64_t first_samples = 1u << 20;  // first common-sample comparison
  std::uint64_t max_samples = 1u << 24;    // last one before an exact score
  double z = 1.0;                          // tolerance before the last stage, standard errors
  // Tournament workers wait while the ranker computes an exact score, so that the score
  // (all 2^n inputs, on the run's threads) has the machine to itself instead of a share.
  bool exact_priority = false;
  // At the best's local optimum, go on with every pair of moves (LocalSearchOptions::pairs).
  bool pairs = false;
  // Moves clearer than this many standard errors defer their exact score
  // (LocalSearchOptions::decisive_z); 0: every move is scored exactly.
  double decisive_z = 0;
  // Iterated local search: once the best is a local optimum the ranker goes on from kicked
  // copies of it (kick_moves random moves of the neighbourhood) or, with probability
  // leader_starts, from one of the pool's leaders. Those searches move on sampled evidence
  // (no exact score per move, at most kick_max_moves moves); their end point is scored
  // exactly when its estimate is within z standard errors of the best's exact chi2.
  // Off by default: on free32x5 it cost the tournaments a third of their rate and showed
  // no gain (bench/results/records/free32x5, rows iterated and iterated-off).
  bool iterated = false;
  int kick_moves = 3;
  int kick_max_moves = 30;
  double leader_starts = 0.5;
};

// Memetic operators inside the tournament loop. Rates are shares of the tournaments whose
// loser is replaced; 0 switches an operator off (all 0 and shape_share 1: the plain
// tournament). They act only where programs are scored exactly (width <=
// precision.exact_max_width, where the tiled interpreter makes an exact score cheap), the
// arena they were measured in; sampled runs (wider) are the tournament as before.
struct MemeticConfig {
  // The child is the local optimum reached from the winner: first improvement over shifts
  // +-1 and single-bit flips of constants (evolver/search/local_search.hpp), at most
  // max_moves moves. A winner already at a local optimum breeds as usual. Above 0, every
  // fresh program is tuned the same way before it enters (evolver/run/run.cpp, breed).
  double local_search_rate = 0.05;
  int max_moves = 11;
  // The child takes each operand from the winner or from a random member of the same
  // shape (evolver/search/crossover.hpp).
  double crossover_rate = 0.2;
  // A fresh program takes the step kinds of one of the pool's best members (new operands),
  // so a good shape is tried with many constants before one lineage fills the pool.
  double species_rate = 0.5;
  // The largest share of the pool one shape (sequence of step kinds) may hold: a child
  // whose shape has it replaces the worst member of that shape instead of the tournament's
  // loser. 1: no limit. Not applied with a kind_sequence (one shape only).
  double shape_share = 0.5;
  // Exact scores kept by canonical id (evolver/search/score_cache.hpp); 0: none.
  std::uint64_t score_cache = std::uint64_t{1} << 20;
  bool enabled() const { return local_search_rate > 0 || crossover_rate > 0 || species_rate > 0 || shape_share < 1; }
};

// Restarts against stagnation (evolver/search/restart.hpp): when the pool's best has made no
// progress for max(the window, patience x the time the pool took to reach its last
// progress), the worst `fraction` of the pool is replaced by fresh random programs. The
// window is stagnation_tournaments (tournaments: with one thread the restarts fall where
// they fell before, so a run stays reproducible) or stagnation_seconds; both 0: never.
// Progress: any better pool best when min_gain is 0, else a best at most (1 - min_gain)
// times the last one that counted. The leaders stay unless keep_leaders is false; a full
// restart (fraction 1, keep_leaders false) starts the pool, its sample count and its clock
// afresh, and keeps the run's best and its local search.
struct RestartConfig {
  double stagnation_seconds = 0;
  std::uint64_t stagnation_tournaments = 0;
  double fraction = 0.5;
  double min_gain = 0;
  double patience = 0;
  bool keep_leaders = true;
  // Trap restarts, on by default and independent of the fields above: a sampled pool whose
  // best is still above the noise floor of precision.initial_samples (so the run has never
  // needed more samples) and has not halved for max(trap_tournaments, the tournaments it
  // took to its last halving) is replaced whole (within twice the floor, halving its
  // distance to the floor counts: trap_clock_rank). A pool locked into a poor shape stays
  // there; a healthy one leaves it and is never touched. 0: off.
  std::uint64_t trap_tournaments = 4000;
  bool enabled() const { return stagnation_seconds > 0 || stagnation_tournaments > 0; }
  // Whether the clock's time is the run's tournaments (else its elapsed seconds).
  bool in_tournaments() const { return stagnation_tournaments > 0; }
  double window() const { return in_tournaments() ? double(stagnation_tournaments) : stagnation_seconds; }
};

// When a run stops on its own. Both unset: runs until stopped.
struct Budget {
  std::optional<double> seconds;
  std::optional<std::uint64_t> tournaments;
  friend bool operator==(const Budget&, const Budget&) = default;
};

// How the islands of an island run trade programs (evolve/serve --islands). Kept with the
// run, so a resumed run migrates as it did; ignored by a run on one process.
struct MigrationConfig {
  std::uint64_t interval = 2000;  // tournaments between sends
  std::uint64_t migrants = 4;     // programs per send
  bool random_topology = false;   // JSON "topology": "ring" (to the next rank) or "random"
  friend bool operator==(const MigrationConfig&, const MigrationConfig&) = default;
};

struct RunConfig {
  std::string name;  // free text for people
  int width = 32;
  int max_steps = 5;
  int min_steps = 1;
  std::vector<mixer::StepKind> allowed_kinds;                 // empty = all nine
  std::optional<std::vector<mixer::StepKind>> kind_sequence;  // lock every program to these kinds
  // Programs the run starts from (issue 52): each enters the pool and is polished by the
  // exact climb (evolver/search/climb.hpp) in the run's worker steps. Widths <= 32.
  std::vector<mixer::Program> seed_programs;
  // Relative odds of the kinds in random steps (indexed by StepKind). The defaults favour
  // xorshift-right and mul-const, the kinds good functions are made of, 3 : 1.
  std::array<double, mixer::step_kind_count> kind_weights{1, 3, 1, 1, 3, 1, 1, 1, 1};
  std::size_t pool_size = 1000;
  MutationWeights mutation;
  double fresh_rate = 0.01;    // share of children that are fresh random programs
  double temperature = 0.25;   // of the logistic acceptance, in natural-log-chi2 units
  int max_child_attempts = 8;  // early-rejected children retried before a fallback
  EarlyReject early_reject;
  Precision precision;
  LocalSearchConfig local_search;
  MemeticConfig memetic;
  RestartConfig restart;
  // Optional terms beyond single-bit avalanche (evolver/search/objective.hpp); all 0 by default.
  ObjectiveConfig objective;
  Budget budget;
  std::optional<MigrationConfig> migration;  // unset: the island options of the command line
  std::uint64_t seed = 1;      // JSON: seed_from_json / seed_to_json
  unsigned threads = 0;        // 0 = all cores

  // The kinds random steps are drawn from (allowed_kinds, or all nine when empty).
  std::vector<mixer::StepKind> kinds() const;
  // Worker threads actually used (threads, or the hardware concurrency when 0).
  unsigned worker_threads() const;
};

// The JSON Schema of the document, as text (schema/run.schema.json, compiled in).
const std::string& run_config_schema();
// Validates against the schema and the cross-field rules, fills defaults.
// Throws ConfigError naming the field.
RunConfig run_config_from_json(const nlohmann::json& j);
nlohmann::json to_json(const RunConfig& config);
nlohmann::json to_json(const Budget& budget);
// Throws ConfigError (budget.seconds, budget.tournaments) unless seconds, when given, is a
// finite number > 0 and tournaments 1..2^63-1 (SQLite keeps signed 64-bit integers). For
// budgets made in code (the CLI's flags can be NaN or infinite) and extra budgets.
void validate_budget(const Budget& budget);

// A 64-bit seed in JSON, whose numbers are exact only up to 2^53: an integer
// 0 .. 9007199254740991 (2^53-1) or a string of decimal digits "0" .. "18446744073709551615".
// Anything else is a ConfigError naming field. For every API that takes a seed.
std::uint64_t seed_from_json(const nlohmann::json& value, const std::string& field = "seed");
// An integer when <= 2^53-1, else the decimal string.
nlohmann::json seed_to_json(std::uint64_t seed);

}  // namespace mixforge::evolver
