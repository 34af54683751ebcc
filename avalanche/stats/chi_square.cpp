#include "avalanche/stats/chi_square.hpp"

#include <cmath>

namespace mixforge::avalanche {

double chi_square(const AvalancheCounts& c) {
  // Accumulate sum (2 f - T)^2 exactly in integers where possible, then scale once:
  // (f/T - 1/2)^2 / 0.5 = (2f - T)^2 / (2 T^2). Exact counts stay exact until the end.
  long double sum = 0;
  for (std::uint64_t f : c.flips) {
    const long double d = 2.0L * static_cast<long double>(f) - static_cast<long double>(c.trials);
    sum += d * d;
  }
  const long double t = static_cast<long double>(c.trials);
  return c.trials ? static_cast<double>(sum / (2.0L * t * t)) : 0.0;
}

double bias_from_chi2(double chi2, int width) { return 1000.0 * std::sqrt(2.0 * std::max(chi2, 0.0)) / width; }

double noise_floor(int width, std::uint64_t samples) {
  return samples ? double(width) * width / (2.0 * double(samples)) : 0.0;
}

Score score(const AvalancheCounts& c) {
  Score s;
  s.width = c.width;
  s.exact = c.exact;
  s.samples = c.trials;
  s.chi2 = chi_square(c);
  s.bias = bias_from_chi2(s.chi2, c.width);
  if (c.exact || c.trials == 0) {
    s.chi2_corrected = s.chi2;
    s.chi2_stderr = 0;
    return s;
  }
  // Each cell: A = f/N with Var = p(1-p)/N ~ 1/(4N). (A-.5)^2 has bias sigma^2 and
  // variance ~ 4 delta^2 sigma^2 + 2 sigma^4; cells are treated as independent.
  const double n = static_cast<double>(c.trials);
  double var = 0;
  for (std::uint64_t f : c.flips) {
    const double a = static_cast<double>(f) / n;
    const double sigma2 = a * (1 - a) / n;
    const double delta2 = std::max(0.0, (a - 0.5) * (a - 0.5) - sigma2);
    var += 4.0 * (4.0 * delta2 * sigma2 + 2.0 * sigma2 * sigma2);  // chi2 = 2 * sum
  }
  s.chi2_corrected = s.chi2 - noise_floor(c.width, c.trials);
  s.chi2_stderr = std::sqrt(var);
  return s;
}

std::vector<double> avalanche_matrix(const AvalancheCounts& c) {
  std::vector<double> a(c.flips.size());
  for (std::size_t k = 0; k < a.size(); ++k)
    a[k] = c.trials ? static_cast<double>(c.flips[k]) / static_cast<double>(c.trials) : 0.0;
  return a;
}

}  // namespace mixforge::avalanche
