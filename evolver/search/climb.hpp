#pragma once
// The exact climb (issue 52): a first-improvement local search on exact scores. Around a
// centre, every program one move away (neighbours(): shifts +-1, single-bit flips of
// constants; informed, also two top bits of a multiplier: top_bit_pairs()) is scored
// exactly, in the order of options.order (evolver/search/move_order.hpp: by default the
// moves likeliest to be lower first); the first lower one, once a second scorer (the
// reference interpreter) agrees on its score, becomes the centre and the search starts
// again around it. At a centre none of whose single moves is lower, every pair of moves
// (pair_neighbours()) follows, in the order of their single moves' scores (order_pairs).
// It ends at a local optimum of one and two moves.
//
// A Climb advances one exact score per step(), so its owner can run it in slices, stop it
// between scores and go on later where it was: the run's workers take one step per worker
// step (a one-thread run stays reproducible), `mixforge polish` loops until done or stopped.
// Scoring is the caller's (ExactScore): the climb itself is pure.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <unordered_map>
#include <vector>

#include "evolver/search/move_order.hpp"
#include "mixer/program.hpp"

namespace mixforge::evolver {

// Exact scores cost 2^n inputs: the model's exact kernels stop at 32 bits.
inline constexpr int climb_max_width = 32;

// The exact chi2 of a program (may throw: a cancelled score leaves the climb as it was).
using ExactScore = std::function<double(const mixer::Program&)>;

struct ClimbOptions {
  // At a local optimum of single moves, go on with the pairs before ending.
  bool pairs = true;
  // False: a survey. Every program one and two moves from the start is scored and none
  // becomes the centre (bench_record_neighbourhood --moves).
  bool move = true;
  // The single moves' order: neighbours()' own (fixed), or by the expected cost of their
  // class, learned as the climb scores (informed).
  MoveOrder order = MoveOrder::informed;
};

// What one step did.
struct ClimbStep {
  mixer::Program program;  // the program scored
  double chi2 = 0;         // its exact chi2
  bool pair = false;       // two moves from the centre (else one): a pair, or a top-bit pair
  std::size_t index = 0;   // its place in the centre's neighbourhood, 1-based
  std::size_t count = 0;   // programs in that neighbourhood
  bool lower = false;      // below the centre's chi2
  // For a lower program: the check's score. It moved only when the two agree.
  std::optional<double> check;
  bool moved = false;  // it is the centre now
};

class Climb {
 public:
  // start_chi2: start's exact chi2. Throws std::invalid_argument above climb_max_width.
  Climb(mixer::Program start, double start_chi2, ClimbOptions options = {});

  // Scores the next program not scored before (from any centre) and moves there when it is
  // lower and check agrees. Nullopt once done. An exception of exact or check propagates
  // and the climb stays where it was: the next step scores the same program.
  std::optional<ClimbStep> step(const ExactScore& exact, const ExactScore& check);

  // A local optimum of one (and, with pairs, two) moves: every program around the centre
  // has been scored and none is lower. For a survey: every one of them scored.
  bool done() const { return done_; }
  const mixer::Program& start() const { return start_; }
  double start_chi2() const { return start_chi2_; }
  const mixer::Program& centre() const { return centre_; }
  double centre_chi2() const { return centre_chi2_; }
  std::uint64_t moves() const { return moves_; }    // centres moved to
  std::uint64_t scored() const { return scored_; }  // exact scores computed by step()
  bool in_pairs() const { return in_pairs_; }
  std::size_t position() const { return next_; }  // programs of the neighbourhood passed
  std::size_t neighbourhood_size() const { return around_.size(); }

 private:
  void around_centre();

  ClimbOptions o_;
  mixer::Program start_;
  double start_chi2_;
  mixer::Program centre_;
  double centre_chi2_;
  std::vector<mixer::Program> around_;  // the centre's singles, or its ordered pairs
  std::size_t next_ = 0;
  bool in_pairs_ = false;
  bool done_ = false;
  std::uint64_t moves_ = 0;
  std::uint64_t scored_ = 0;
  // Every exact score so far, by hash: a program scored around an earlier centre is not
  // scored again (it was not below that centre, so not below this lower one), and the
  // pairs are ordered by their singles' scores.
  std::unordered_map<std::uint64_t, double> scores_;
  MoveStats stats_;  // what the single moves' scores taught (options.order informed)
};

// Orders pairs (pair_neighbours(centre)) by their two single moves' scores, the higher of
// the two, lowest first: two moves that each cost little are where a lower pair is
// likeliest. A single move missing from scores counts as infinitely bad. Stable.
void order_pairs(const mixer::Program& centre, const std::unordered_map<std::uint64_t, double>& scores,
                 std::vector<mixer::Program>& pairs);

struct ClimbHooks {
  std::function<bool()> keep_going;                              // before each step; false stops
  std::function<void(const Climb&, const ClimbStep&)> progress;  // after each step
};

// Steps until the climb is done or keep_going says stop; true when done.
bool run_climb(Climb& climb, const ExactScore& exact, const ExactScore& check, const ClimbHooks& hooks = {});

}  // namespace mixforge::evolver
