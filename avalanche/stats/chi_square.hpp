#pragma once
// Statistics of an avalanche matrix (docs/background.md, "Quality").
#include <cstdint>
#include <vector>

#include "avalanche/counts.hpp"

namespace mixforge::avalanche {

struct Score {
  int width = 0;
  double chi2 = 0;            // sum over cells of (A - 0.5)^2 / 0.5
  double chi2_corrected = 0;  // chi2 - n^2 / (2N): unbiased for sampled scores; = chi2 when exact
  double chi2_stderr = 0;     // standard error of chi2_corrected (0 when exact)
  double bias = 0;            // hash-prospector's unit: 1000 * sqrt(2 * chi2) / n
  std::uint64_t samples = 0;  // inputs used (2^n when exact)
  bool exact = false;
};

double chi_square(const AvalancheCounts& counts);
double bias_from_chi2(double chi2, int width);
// The expected chi2 of pure sampling noise at N inputs: n^2 / (2N).
double noise_floor(int width, std::uint64_t samples);
Score score(const AvalancheCounts& counts);
// A[i][j] as probabilities, row i = input bit.
std::vector<double> avalanche_matrix(const AvalancheCounts& counts);

}  // namespace mixforge::avalanche
