#pragma once
// Higher-order avalanche (Pelle Evensen's requirement): flipping any set of input bits,
// not only one, should change each output bit with probability 1/2 independently, so the
// output Hamming distance |f(x) ^ f(x ^ m)| must follow Binomial(n, 1/2). Sampled: random
// inputs x and random masks m of exactly k distinct bits (k = 2, 3); the histogram of
// distances is tested against the binomial by a chi-square.
#include <atomic>
#include <cstdint>
#include <vector>

#include "avalanche/batch_function.hpp"
#include "avalanche/stats/chi2_distribution.hpp"

namespace mixforge::avalanche {

// A histogram of distances 0..n against Binomial(n, 1/2). Bins whose expected count is
// below 5 are pooled with their neighbours towards the middle (the chi-square
// approximation needs it); dof = pooled bins - 1. Fewer than two bins: dof 0, p 1.
struct BinomialFit {
  double chi2 = 0;
  int dof = 0;
  double p_value = 1;
  Verdict verdict = Verdict::passed;
  double mean = 0;  // mean distance observed (n/2 ideally)
};
BinomialFit binomial_fit(const std::vector<std::uint64_t>& histogram);

struct FlipDistance {
  int flipped_bits = 0;  // k
  std::uint64_t samples = 0;
  bool exact = false;                    // every unordered pair {x, x ^ m} once
  std::vector<std::uint64_t> histogram;  // distance 0..n
  BinomialFit fit;
};

// k distinct bits per mask, 1 <= k <= width <= 64; samples >= 1. Deterministic in seed.
// When samples reach the number of unordered pairs {x, x ^ m} (2^(n-1) C(n, k)), each is
// taken once instead (exact; resampling a small domain would over-weigh its deviations).
// cancel (may be null) is checked between chunks: EvaluationCancelled.
FlipDistance flip_distance(const BatchFunction& f, int width, int flipped_bits, std::uint64_t samples,
                           std::uint64_t seed, const std::atomic<bool>* cancel = nullptr);

// k = 2 and 3 (those that fit the width), each with `samples` masks.
std::vector<FlipDistance> higher_order_avalanche(const BatchFunction& f, int width, std::uint64_t samples,
                                                 std::uint64_t seed, const std::atomic<bool>* cancel = nullptr);

}  // namespace mixforge::avalanche
