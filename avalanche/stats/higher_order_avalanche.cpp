#include "avalanche/stats/higher_order_avalanche.hpp"

#include <bit>
#include <cmath>
#include <stdexcept>

#include "avalanche/counts.hpp"
#include "avalanche/count/sample_stream.hpp"
#include "mixer/width.hpp"

namespace mixforge::avalanche {

BinomialFit binomial_fit(const std::vector<std::uint64_t>& histogram) {
  if (histogram.empty()) throw std::invalid_argument("binomial_fit needs a histogram of n + 1 bins");
  const int n = static_cast<int>(histogram.size()) - 1;
  const auto pmf = binomial_half_pmf(n);
  double total = 0, weighted = 0;
  for (int d = 0; d <= n; ++d) {
    total += static_cast<double>(histogram[d]);
    weighted += static_cast<double>(d) * static_cast<double>(histogram[d]);
  }
  BinomialFit fit;
  if (total == 0) return fit;
  fit.mean = weighted / total;
  // Bins pooled until each expects at least 5 (the lower tail becomes one bin).
  std::vector<double> observed(histogram.begin(), histogram.end()), expected(pmf.size());
  for (int d = 0; d <= n; ++d) expected[d] = total * pmf[d];
  const PooledChi2 pooled = pooled_chi2(observed, expected);
  if (pooled.dof == 0) return fit;
  fit.chi2 = pooled.chi2;
  fit.dof = pooled.dof;
  fit.p_value = chi2_survival(fit.chi2, fit.dof);
  fit.verdict = verdict_for_p_value(fit.p_value);
  return fit;
}

namespace {
// Mask of k distinct bits below n, drawn by a counter-based stream (mask number s).
std::uint64_t random_mask(std::uint64_t seed, std::uint64_t s, int n, int k) {
  std::uint64_t mask = 0;
  for (int t = 0; t < k; ++t) {
    const std::uint64_t r = sample_input(seed, s * 4 + static_cast<std::uint64_t>(t));
    // The u-th of the n - t bits still free (multiply-shift: bias below 2^-57).
    int u = static_cast<int>((static_cast<unsigned __int128>(r) * static_cast<unsigned>(n - t)) >> 64);
    for (int b = 0; b < n; ++b) {
      if (mask >> b & 1) continue;
      if (u-- == 0) {
        mask |= std::uint64_t{1} << b;
        break;
      }
    }
  }
  return mask;
}
}  // namespace

FlipDistance flip_distance(const BatchFunction& f, int width, int k, std::uint64_t samples, std::uint64_t seed,
                           const std::atomic<bool>* cancel) {
  if (width < 1 || width > 64) throw std::invalid_argument("higher-order avalanche needs a width of 1..64");
  if (k < 1 || k > width)
    throw std::invalid_argument("higher-order avalanche: cannot flip " + std::to_string(k) + " distinct bits of " +
                                std::to_string(width));
  if (samples == 0) throw std::invalid_argument("higher-order avalanche needs at least one sample");
  const std::uint64_t mask = mixer::width_mask(width);
  // Inputs and masks from streams of their own, separate for each k.
  const std::uint64_t input_seed = seed ^ (0x51ed27a3c0ffee00ull + static_cast<std::uint64_t>(k));
  const std::uint64_t mask_seed = seed ^ (0x9a3c5e7f12345600ull + static_cast<std::uint64_t>(k));
  // The masks of k bits when every pair is taken: each mask with the inputs whose lowest
  // mask bit is clear (x and x ^ m give the same distance).
  std::vector<std::uint64_t> masks;
  if (width <= 40) {
    double population = std::ldexp(1.0, width - 1);
    for (int t = 0; t < k; ++t) population = population * (width - t) / (t + 1);
    if (population <= static_cast<double>(samples)) {
      for (std::uint64_t m = 1; m <= mask && m < (std::uint64_t{1} << width); ++m)
        if (std::popcount(m) == k) masks.push_back(m);
      samples = static_cast<std::uint64_t>(masks.size()) << (width - 1);
    }
  }
  const bool exact = !masks.empty();
  FlipDistance out;
  out.flipped_bits = k;
  out.samples = samples;
  out.exact = exact;
  out.histogram.assign(static_cast<std::size_t>(width) + 1, 0);
  constexpr std::size_t chunk = 4096;
  std::vector<std::uint64_t> x(chunk), fx(chunk), y(chunk), fy(chunk);
  for (std::uint64_t first = 0; first < samples; first += chunk) {
    if (cancel && cancel->load(std::memory_order_relaxed)) throw EvaluationCancelled();
    const std::size_t m = static_cast<std::size_t>(std::min<std::uint64_t>(chunk, samples - first));
    for (std::size_t s = 0; s < m; ++s) {
      const std::uint64_t t = first + s;
      if (exact) {
        const std::uint64_t mk = masks[t >> (width - 1)], low = t & ((std::uint64_t{1} << (width - 1)) - 1);
        const int b = std::countr_zero(mk);  // insert a zero at the lowest mask bit
        x[s] = ((low >> b) << (b + 1)) | (low & ((std::uint64_t{1} << b) - 1));
        y[s] = x[s] ^ mk;
      } else {
        x[s] = sample_input(input_seed, t) & mask;
        y[s] = x[s] ^ random_mask(mask_seed, t, width, k);
      }
    }
    f(x.data(), fx.data(), m);
    f(y.data(), fy.data(), m);
    for (std::size_t s = 0; s < m; ++s) ++out.histogram[std::popcount((fx[s] ^ fy[s]) & mask)];
  }
  out.fit = binomial_fit(out.histogram);
  return out;
}

std::vector<FlipDistance> higher_order_avalanche(const BatchFunction& f, int width, std::uint64_t samples,
                                                 std::uint64_t seed, const std::atomic<bool>* cancel) {
  std::vector<FlipDistance> out;
  for (int k : {2, 3})
    if (k <= width) out.push_back(flip_distance(f, width, k, samples, seed, cancel));
  return out;
}

}  // namespace mixforge::avalanche
