#pragma once
// Local search around a leader (issue 11): the neighbourhood that worked in the
// literature (hash-prospector's hill climbing): every shift or rotation amount +-1 and
// every single-bit flip of a constant (multipliers stay odd). First improvement: the
// first neighbour that is confirmed better becomes the centre and the sweep restarts.
//
// Exact 32-bit scores cost seconds, so a neighbour is spent an exact score only when
// sampled comparisons say it can win: it is scored on the same inputs as the centre
// (common random numbers) at growing N, and goes on while its noise-corrected chi2 stays
// within z standard errors of the centre's (z falls to 0 at the last stage: it must look
// better on the same inputs). Stages extend one sample stream, so a stage reuses the
// samples of the one before.
#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <unordered_set>
#include <vector>

#include "avalanche/evaluator.hpp"
#include "evolver/search/pool.hpp"
#include "mixer/program.hpp"

namespace mixforge::evolver {

struct LocalSearchOptions {
  std::uint64_t first_samples = 1u << 16;  // the first comparison
  std::uint64_t max_samples = 1u << 24;    // the last one, before an exact score
  unsigned growth = 4;
  // Stages end early once the centre's standard error is below this share of its exact
  // chi2: a poor centre is told from its neighbours with few samples.
  double rel_stderr = 0.1;
  double z = 1.0;          // tolerance of the stages before the last, in standard errors
  std::uint64_t seed = 1;  // of the common sample stream and the neighbour order
  // At a local optimum of neighbours(), go on with pair_neighbours() (two moves at once)
  // before ending: coupled constants can move together. A move found there returns the
  // search to the single moves around the new centre.
  bool pairs = false;
  // A neighbour lower than the centre by more than decisive_z standard errors (the
  // independent bound) at the last stage becomes the centre without an exact score (0:
  // never). The centre's exact score is taken when one is next needed (a neighbour to
  // confirm, the end of the neighbourhood), so a run of clear moves costs one exact score;
  // should that score not beat the last exact centre, the search goes back to that one.
  double decisive_z = 0;
};

// A centre without an exact score (start_exact NaN, the kicked starts of iterated local
// search) moves on sampled evidence alone: a neighbour that is lower at the last stage on
// the centre's own inputs becomes the centre, with no exact score; the caller scores the
// end point exactly if it looks worth it (centre_score()).
//
// Every program one move away from p, in a fixed order: amounts +-1 (within 1..n-1),
// then single-bit flips of constants (bit 0 of a multiplier excluded). Duplicates of p
// (a no-op move) are left out.
std::vector<mixer::Program> neighbours(const mixer::Program& p);
// Every program two moves of neighbours() away from p (two different moves, at the same
// step or at two steps), each once, in a fixed order; p and the single moves left out.
std::vector<mixer::Program> pair_neighbours(const mixer::Program& p);

struct LocalSearchCounters {
  std::uint64_t neighbours = 0;      // compared on samples
  std::uint64_t samples = 0;         // sampled inputs spent (centre and neighbours)
  std::uint64_t exact_scored = 0;    // neighbours that reached an exact score
  std::uint64_t improvements = 0;    // confirmed better (moves made)
  std::uint64_t sampled_moves = 0;   // moves of a sampled centre (no exact score)
  std::uint64_t decisive_moves = 0;  // clear moves whose exact score was deferred (decisive_z)
  std::uint64_t reverted = 0;        // deferred scores that did not beat the centre before
  bool local_optimum = false;        // the last centre has no better neighbour
};

struct LocalSearchHooks {
  // The exact chi2 of a program (the run scores it under its own arena and cancel flag;
  // it may throw EvaluationCancelled, which ends the search).
  std::function<Estimate(const mixer::Program&)> exact;
  // Called before each neighbour is compared; false ends the search (stop requested).
  // May block (paused).
  std::function<bool()> keep_going;
  // A confirmed improvement, now the centre (for a sampled centre: a move on sampled
  // evidence, with its last-stage estimate). False ends the search.
  std::function<bool(const mixer::Program&, const Estimate&)> improved;
  // Programs not to spend work on (already in the pool or already scored exactly).
  std::function<bool(std::uint64_t hash)> skip;
};

// A search that can be interrupted (a hook returns false) and continued by calling run
// again: it keeps its centre, its place in the neighbourhood and what it has tried.
class LocalSearch {
 public:
  // start must be at most 32 bits wide (exact confirmation); start_exact its exact chi2,
  // or NaN for a sampled centre (see above).
  LocalSearch(mixer::Program start, double start_exact, LocalSearchOptions options);
  // Until a local optimum, or a hook says stop. Exceptions of hooks.exact propagate.
  void run(const avalanche::Evaluator& evaluator, const LocalSearchHooks& hooks);
  const mixer::Program& centre() const { return centre_; }
  // The last centre with an exact score (the centre but after decisive moves) and that
  // score (NaN for a sampled centre).
  const mixer::Program& settled() const { return pending_ ? settled_ : centre_; }
  double centre_chi2() const { return centre_exact_; }
  bool sampled_centre() const { return centre_exact_ != centre_exact_; }
  // The centre's score at the last stage of its comparisons (its most precise sampled
  // score); empty before the first run or where the stages are skipped (small widths).
  std::optional<avalanche::Score> centre_score() const;
  bool done() const { return counters_.local_optimum; }
  const LocalSearchCounters& counters() const { return counters_; }

 private:
  void enter(const mixer::Program& centre, double exact, const avalanche::Evaluator& evaluator);
  // The pending centre's exact score: it becomes the settled centre (hooks.improved) if it
  // beats the last one, else the search goes back there. False: a hook said stop.
  bool settle(const avalanche::Evaluator& evaluator, const LocalSearchHooks& hooks);

  LocalSearchOptions o_;
  mixer::Program centre_;
  double centre_exact_;
  std::vector<std::uint64_t> sizes_;  // stage sizes for this centre
  std::vector<avalanche::Score> base_;  // the centre's scores at those sizes
  std::vector<mixer::Program> around_;  // its neighbours in this search's order
  std::size_t next_ = 0;              // the next of them to compare
  bool in_pairs_ = false;             // around_ holds pair_neighbours (options.pairs)
  bool pending_ = false;              // centre_ reached by decisive moves, not yet scored
  mixer::Program settled_;            // while pending_: the centre whose exact is centre_exact_
  bool entered_ = false;
  std::unordered_set<std::uint64_t> tried_;  // hashes compared from any centre
  LocalSearchCounters counters_;
};

// From start to a local optimum or until a hook says stop (a LocalSearch run once).
LocalSearchCounters local_search(const mixer::Program& start, double start_exact, const avalanche::Evaluator& evaluator,
                                 const LocalSearchOptions& options, const LocalSearchHooks& hooks);

}  // namespace mixforge::evolver
