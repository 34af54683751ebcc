#include "evolver/search/tournament.hpp"

#include <stdexcept>
#include <string>

#include "evolver/search/acceptance.hpp"
#include "evolver/search/rng.hpp"

namespace mixforge::evolver {

TournamentOutcome hold_tournament(const Pool& pool, double temperature, int width, Rng& rng) {
  const std::size_t n = pool.size();
  if (n < 2) throw std::logic_error("a tournament needs two members, the pool has " + std::to_string(n));
  const std::size_t a = rng.below(n);
  std::size_t b = rng.below(n - 1);
  if (b >= a) ++b;
  // Ties go to the first drawn: both orders are equally likely, so neither is favoured.
  const bool a_wins = pool[a].estimate.rank() <= pool[b].estimate.rank();
  TournamentOutcome t;
  t.winner = a_wins ? a : b;
  t.loser = a_wins ? b : a;
  t.remove = remove_loser(pool[t.loser].estimate.rank(), pool[t.winner].estimate.rank(), temperature, width, rng);
  return t;
}

}  // namespace mixforge::evolver
