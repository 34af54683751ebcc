#pragma once
// One tournament of the search, as a pure function of the pool and the worker's RNG:
// two distinct members drawn uniformly, the one with the lower rank (Estimate::rank())
// wins, and the loser is removed with the logistic probability of acceptance.hpp.
// The run applies the outcome; tests check the rule here, on the function the run calls.
#include <cstddef>

#include "evolver/search/pool.hpp"

namespace mixforge::evolver {

class Rng;

struct TournamentOutcome {
  std::size_t winner = 0;  // pool indexes, distinct
  std::size_t loser = 0;
  bool remove = false;     // replace the loser by a child of the winner
};

// The pool must hold at least two members (std::logic_error otherwise: the run waits
// for its pool to fill before it holds a tournament).
TournamentOutcome hold_tournament(const Pool& pool, double temperature, int width, Rng& rng);

}  // namespace mixforge::evolver
