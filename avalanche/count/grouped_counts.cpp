#include "avalanche/count/grouped_counts.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace mixforge::avalanche {

GroupedCounts::GroupedCounts(int width, int groups)
    : width_(width),
      groups_(static_cast<std::size_t>(groups), AvalancheCounts::zero(width, false)),
      pooled_(AvalancheCounts::zero(width, false)) {
  if (groups < 1) throw std::invalid_argument("grouped counts need at least one group");
}

void GroupedCounts::add(int g, const AvalancheCounts& counts) {
  if (counts.width != width_ || counts.exact)
    throw std::invalid_argument("grouped counts take sampled counts of width " + std::to_string(width_));
  groups_.at(static_cast<std::size_t>(g)) += counts;
  pooled_ += counts;
}

int GroupedCounts::chunks(std::uint64_t count) const {
  const std::uint64_t by_size = std::max<std::uint64_t>(count / min_group_chunk, 1);
  return static_cast<int>(std::min<std::uint64_t>(by_size, static_cast<std::uint64_t>(groups())));
}

std::uint64_t group_chunk_start(std::uint64_t first, std::uint64_t count, int chunks, int k) {
  // count * k / chunks in 128 bits: no overflow for any 64-bit count.
  return first + static_cast<std::uint64_t>((static_cast<unsigned __int128>(count) * static_cast<unsigned>(k)) /
                                            static_cast<unsigned>(chunks));
}

Score GroupedCounts::score() const {
  Score s = avalanche::score(pooled_);
  if (pooled_.trials == 0) return s;
  int used = 0;
  for (const AvalancheCounts& g : groups_) used += g.trials > 0;
  if (used < 8) return s;
  const double n = static_cast<double>(pooled_.trials);
  const std::size_t cells = pooled_.flips.size();
  std::vector<double> a(cells), w(cells);
  double quad = 0;  // 8 sum s^4: the quadratic part's variance
  for (std::size_t c = 0; c < cells; ++c) {
    a[c] = static_cast<double>(pooled_.flips[c]) / n;
    w[c] = 4.0 * (a[c] - 0.5);
    const double s2 = a[c] * (1 - a[c]) / n;
    quad += 8.0 * s2 * s2;
  }
  // The linear part's variance from the groups: sum_g (m_g / N)^2 L_g^2 * G / (G - 1),
  // L_g = sum_c w_c (A_gc - A_c), the pooled mean of L being 0.
  double lin = 0;
  for (const AvalancheCounts& g : groups_) {
    if (g.trials == 0) continue;
    const double m = static_cast<double>(g.trials);
    double l = 0;
    for (std::size_t c = 0; c < cells; ++c) l += w[c] * (static_cast<double>(g.flips[c]) / m - a[c]);
    lin += (m / n) * (m / n) * l * l;
  }
  lin *= static_cast<double>(used) / static_cast<double>(used - 1);
  s.chi2_stderr = std::sqrt(std::max(lin - 2.0 * quad, 0.0) + quad);
  return s;
}

}  // namespace mixforge::avalanche
