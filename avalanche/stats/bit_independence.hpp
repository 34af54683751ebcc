#pragma once
// Bit independence criterion (Webster and Tavares): when one input bit flips, the changes
// of any two output bits should be independent fair coins. Sampled: for each input bit i,
// N inputs x give d = f(x) ^ f(x ^ 2^i); for every output pair j < k the pair's
// correlation is c = E[(1 - 2 d_j)(1 - 2 d_k)] (the correlation coefficient when both bits
// flip half the time, as the strict avalanche criterion demands; still defined, and +-1,
// when a bit never or always flips). For an ideal function N c^2 ~ chi2(1), so the sum over
// all n * n(n-1)/2 (input bit, pair) cells is ~ chi2 with that many degrees of freedom.
#include <atomic>
#include <cstdint>

#include "avalanche/batch_function.hpp"
#include "avalanche/stats/chi2_distribution.hpp"

namespace mixforge::avalanche {

struct BitIndependence {
  int width = 0;
  std::uint64_t samples_per_bit = 0;  // N inputs for each flipped input bit
  bool exact = false;                 // every pair {x, x ^ 2^i} once (N = 2^(n-1))
  std::uint64_t cells = 0;            // n * n(n-1)/2 (0 below 2 bits: nothing to test)
  double chi2 = 0;                    // sum of N c^2 over the cells
  double p_value = 1;                 // P(chi2(cells) >= chi2)
  Verdict verdict = Verdict::passed;
  // The cell with the largest |c| (meaningful when cells > 0).
  int worst_input_bit = 0;
  int worst_output_bits[2] = {0, 0};
  double worst_correlation = 0;
};

// samples_per_bit >= 1; width 1..64. Inputs come from sample_input(seed, k): the same
// seed gives the same result. From samples_per_bit >= 2^(n-1) on, every input pair is
// counted once instead (exact). cancel (may be null) is checked between input bits and
// throws EvaluationCancelled.
BitIndependence bit_independence(const BatchFunction& f, int width, std::uint64_t samples_per_bit, std::uint64_t seed,
                                 const std::atomic<bool>* cancel = nullptr);

}  // namespace mixforge::avalanche
