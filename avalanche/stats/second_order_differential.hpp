#pragma once
// Second-order differential: for input differences a, b the second derivative
//   D(x) = f(x) ^ f(x ^ a) ^ f(x ^ b) ^ f(x ^ a ^ b)
// of an ideal function is uniform over n-bit values. A function whose output bits have low
// algebraic degree fails it however well it avalanches: D is constant (a quadratic map) or
// identically 0 (a map that is linear over GF(2), such as xorshifts alone), and where
// carries only move upwards (a lone multiply) D is 0 below the higher flipped bit.
//
// Pairs tested: every pair of distinct single bits {e_i, e_j}, i < j (n(n-1)/2 of them),
// and up to n pairs of disjoint weight-2 masks {e_p | e_q, e_r | e_s} drawn from the seed
// (widths of 4 bits and more; distinct pairs only). Three statistics over every D seen:
//  - bits: for each (pair, output bit) cell the count c of D's with that bit set; for an
//    ideal function c ~ Binomial(N, 1/2), so z = (2c - N) / sqrt(N) and the sum of z^2 over
//    all pairs * n cells is chi2 with that many degrees of freedom.
//  - weight: the histogram of |D| (all pairs together) against Binomial(n, 1/2), bins pooled
//    to at least 5 expected (binomial_fit); catches output bits of D that move together, a
//    little in every pair.
//  - weight by pair: the same fit for each pair's own histogram, the chi2s and their dof
//    summed; catches a few pairs whose D's bits move together (triple32's {e_14, e_31}),
//    which the pooled histogram dilutes in all the others.
// The measure's p-value is Bonferroni's over the three, min(1, 3 min(p_bits, p_weight,
// p_weight_by_pair)), and its verdict verdict_for_p_value of that.
//
// Exact (every x): D is the same for the four inputs of a coset x + <a, b>, so each coset is
// counted once, N = 2^(n-2) per pair (counting every x would count each coset 4 times, and
// the chi2 would read 4 times too large). That also makes the counts of an ideal function
// exactly Binomial(N, 1/2): the cosets of one pair are disjoint. Sampled: N random x per
// pair, the same x for every pair (f(x) and f(x ^ e_i) are then shared: about one
// evaluation per D instead of four).
#include <atomic>
#include <cstdint>
#include <vector>

#include "avalanche/batch_function.hpp"
#include "avalanche/stats/chi2_distribution.hpp"
#include "avalanche/stats/higher_order_avalanche.hpp"

namespace mixforge::avalanche {

struct DifferencePair {
  std::uint64_t a = 0, b = 0;  // linearly independent, a & b == 0
  bool operator==(const DifferencePair&) const = default;
};

struct SecondOrderDifferential {
  int width = 0;
  bool exact = false;                  // every coset x + <a, b> once, for each pair
  std::uint64_t samples_per_pair = 0;  // N: cosets 2^(n-2) when exact, else inputs x
  std::uint64_t samples = 0;           // D values in all: pairs * N
  int single_bit_pairs = 0;            // n(n-1)/2 (0 below 2 bits: nothing to test)
  int weight_two_pairs = 0;            // disjoint weight-2 masks, from the seed
  std::vector<DifferencePair> pairs;   // single-bit pairs (i < j, by i then j), then weight-2 pairs

  // bits: sum of z^2 over the (pair, output bit) cells, against chi2(cells).
  std::uint64_t cells = 0;
  double bits_chi2 = 0;
  std::uint64_t constant_cells =
      0;  // cells whose bit of D was never or always set (beyond tiny N: structure, not chance)
  double bits_p_value = 1;
  Verdict bits_verdict = Verdict::passed;
  // weight: |D| against Binomial(n, 1/2), all pairs together.
  std::vector<std::uint64_t> weight_histogram;  // 0..n
  BinomialFit weight;
  // weight by pair: each pair's fit; chi2 and dof summed over the pairs, against chi2(dof).
  std::vector<std::uint64_t> pair_weight_histograms;  // [p * (n + 1) + w]
  double pair_weight_chi2 = 0;
  int pair_weight_dof = 0;
  double pair_weight_p_value = 1;
  Verdict pair_weight_verdict = Verdict::passed;
  DifferencePair worst_weight_pair;  // the pair whose own fit has the largest chi2 (all have the same dof)
  BinomialFit worst_weight_fit;

  double p_value = 1;  // min(1, 3 min(bits_p_value, weight.p_value, pair_weight_p_value))
  Verdict verdict = Verdict::passed;

  // The cell with the largest |P(bit of D = 1) - 1/2| (meaningful when cells > 0).
  DifferencePair worst_pair;
  int worst_output_bit = 0;
  double worst_probability = 0.5;  // c / N
  double worst_z = 0;              // (2c - N) / sqrt(N)

  // counts[p * n + k]: D's of pair p with output bit k set (kept for tests and reports).
  std::vector<std::uint64_t> counts;
};

// Widths up to this are tabulated and counted exactly when samples_per_pair reaches the
// number of cosets 2^(n-2).
inline constexpr int second_order_exact_max_width = 20;

// The pairs the measure tests at this width and seed (see the top of this file).
std::vector<DifferencePair> second_order_pairs(int width, std::uint64_t seed);

// width 1..64; samples_per_pair >= 1. Deterministic in seed (the weight-2 pairs and the
// sampled inputs). cancel (may be null) is checked between chunks: EvaluationCancelled.
SecondOrderDifferential second_order_differential(const BatchFunction& f, int width, std::uint64_t samples_per_pair,
                                                  std::uint64_t seed, const std::atomic<bool>* cancel = nullptr);

}  // namespace mixforge::avalanche
