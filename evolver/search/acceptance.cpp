#include "evolver/search/acceptance.hpp"

#include <algorithm>
#include <cmath>

#include "evolver/search/rng.hpp"

namespace mixforge::evolver {

double quality_floor(int width) {
  const double n = width;
  return std::max(n * n * std::ldexp(1.0, -(width + 7)), 1e-15);
}

double log_quality(double chi2, int width) { return std::log(std::max(chi2, quality_floor(width))); }

double removal_probability(double loser_chi2, double winner_chi2, double temperature, int width) {
  const double d = log_quality(loser_chi2, width) - log_quality(winner_chi2, width);
  if (temperature <= 0) return d > 0 ? 1.0 : 0.5;
  return 1.0 / (1.0 + std::exp(-d / temperature));
}

bool remove_loser(double loser_chi2, double winner_chi2, double temperature, int width, Rng& rng) {
  return rng.chance(removal_probability(loser_chi2, winner_chi2, temperature, width));
}

}  // namespace mixforge::evolver
