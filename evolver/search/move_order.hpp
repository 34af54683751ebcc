#pragma once
// The order in which the exact climb scores a centre's single moves (issue 52 part 3).
// First improvement pays only for the moves scored before the lower one, and at 32 bits the
// lower ones are not spread evenly: around the published 2- and 3-round functions a flip of
// a multiplier's top bits costs 1.0-1.5x the centre's chi2, of its low bits 2-24x, and
// every move of both records' climbs was in bits 27-31 (bench/results/records/README.md).
// neighbours() lists the low bits first, so the lower move was the 68th of 68.
//
// informed: moves fall into classes (an outer or inner shift, up or down; a constant's bit,
// by eighth of the word; a pair of a multiplier's top bits), each with two learned means:
// its cost, log2(chi2 / centre chi2), and its gain, max(0, -cost). Near an optimum (fewer
// than 2 of the last 8 scores lower than their centre) classes go by cost, lowest first,
// from a prior that ranks them as the surveys did (top eighths of multipliers, then outer
// shifts, then the low bits and inner shifts): where the records' last moves were. Far from
// one (a poor start, 2 or more of the last 8 lower) they go by gain, from an optimistic
// prior so that every class is tried: a shift that pays keeps coming first. Measured
// (bench/move_order.sh, bench/polish.sh): fewer exact scores in both regimes; from random
// starts the local optimum reached is on a par with the fixed order's, not better.
// Deterministic: ties keep neighbours()' order. The informed neighbourhood adds the
// top-bit pairs (below) to neighbours(); the pairs phase after it is the same in both
// orders.
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

#include "mixer/program.hpp"

namespace mixforge::evolver {

enum class MoveOrder { fixed, informed };

std::string_view move_order_name(MoveOrder order);
// "fixed" or "informed"; throws std::invalid_argument naming both otherwise.
MoveOrder parse_move_order(std::string_view name);

// Classes of the moves: 0-7 a multiplier's bit by eighth of the word (7: the top bits),
// 8-15 another constant's, 16 and 17 a shift of the first or last step down and up, 18 and
// 19 an inner step's, 20 two bits of one multiplier's top eighth (top_bit_pairs()).
inline constexpr int move_class_count = 21;
inline constexpr int top_bit_pair_class = 20;
// The class of the move from centre to neighbour (one step differs: one bit or shift, or a
// top-bit pair). Throws std::invalid_argument when they differ at no step, at more than
// one, or by another pair of bits.
int move_class(const mixer::Program& centre, const mixer::Program& neighbour);

// Every program two bit flips of one multiplier's top eighth away from p (bits 28-31 at 32
// bits: 6 per multiplier): the two last moves of triple32's climb were such pairs, and the
// informed order scores them with the single moves instead of after all of them.
std::vector<mixer::Program> top_bit_pairs(const mixer::Program& p);

// Sorts programs[from..] by key(program), lowest first; stable (the move orders and
// order_pairs of evolver/search/climb.hpp).
void sort_programs_by(std::vector<mixer::Program>& programs, std::size_t from,
                      const std::function<double(const mixer::Program&)>& key);

class MoveStats {
 public:
  MoveStats();
  // One exact score of a single move: learns its class's log2(chi2 / centre_chi2).
  void observe(const mixer::Program& centre, double centre_chi2, const mixer::Program& neighbour, double chi2);
  // The expected log2(chi2 / centre chi2) of a move of class c: its cost.
  double expected(int c) const;
  // The expected gain of a move of class c: mean max(0, -log2(chi2 / centre chi2)).
  double expected_gain(int c) const;
  // Far from an optimum: at least 2 of the last 8 scores were lower than their centre.
  bool far() const;
  // Sorts moves[from..] (moves of centre) by their class's cost, lowest first, or when
  // far(), by its gain, highest first; stable.
  void order(const mixer::Program& centre, std::vector<mixer::Program>& moves, std::size_t from = 0) const;

 private:
  std::array<double, move_class_count> sum_{};    // of observed log2 ratios, the prior's included
  std::array<double, move_class_count> count_{};  // observations, the prior's weight included
  std::array<double, move_class_count> gain_{};   // of observed gains, max(0, -log2 ratio), the prior's included
  std::uint32_t recent_ = 0;                      // the last 8 scores, 1 bit each: lower than their centre
};

}  // namespace mixforge::evolver
