#include "avalanche/stats/bit_independence.hpp"

#include <bit>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "avalanche/counts.hpp"
#include "avalanche/count/sample_stream.hpp"
#include "mixer/width.hpp"

namespace mixforge::avalanche {

BitIndependence bit_independence(const BatchFunction& f, int width, std::uint64_t samples_per_bit, std::uint64_t seed,
                                 const std::atomic<bool>* cancel) {
  if (width < 1 || width > 64) throw std::invalid_argument("bit independence needs a width of 1..64");
  if (samples_per_bit == 0) throw std::invalid_argument("bit independence needs at least one sample per bit");
  const int n = width;
  const std::uint64_t mask = mixer::width_mask(n);
  const std::size_t pairs = static_cast<std::size_t>(n) * (n - 1) / 2;
  // Once the samples would cover every input, count every pair {x, x ^ 2^i} once instead:
  // the 2^(n-1) inputs with bit i clear. (Resampling a small domain would weigh the
  // function's own finite-population deviations N / 2^(n-1) times too heavily.)
  const bool exact = n <= 63 && samples_per_bit >= (std::uint64_t{1} << (n - 1));
  if (exact) samples_per_bit = std::uint64_t{1} << (n - 1);
  BitIndependence out;
  out.width = n;
  out.exact = exact;
  out.samples_per_bit = samples_per_bit;
  out.cells = static_cast<std::uint64_t>(n) * pairs;
  if (pairs == 0) return out;

  // Chunks of whole 64-sample blocks: the output changes of a block are transposed into one
  // 64-bit column per output bit, so a pair's disagreements are one popcount per block.
  constexpr std::size_t chunk = 4096;
  std::vector<std::uint64_t> x(chunk), fx(chunk), y(chunk), fy(chunk);
  std::vector<std::uint64_t> disagree(pairs);
  std::uint64_t cols[64];
  double worst = -1;
  const double N = static_cast<double>(samples_per_bit);
  for (int i = 0; i < n; ++i) {
    if (cancel && cancel->load(std::memory_order_relaxed)) throw EvaluationCancelled();
    std::fill(disagree.begin(), disagree.end(), 0);
    const std::uint64_t flip = std::uint64_t{1} << i;
    for (std::uint64_t first = 0; first < samples_per_bit; first += chunk) {
      const std::size_t m = static_cast<std::size_t>(std::min<std::uint64_t>(chunk, samples_per_bit - first));
      for (std::size_t s = 0; s < m; ++s) {
        const std::uint64_t t = first + s;
        // exact: t with a zero bit inserted at position i.
        x[s] = exact ? ((t >> i) << (i + 1)) | (t & (flip - 1)) : sample_input(seed, t) & mask;
        y[s] = x[s] ^ flip;
      }
      f(x.data(), fx.data(), m);
      f(y.data(), fy.data(), m);
      for (std::size_t b = 0; b < m; b += 64) {
        std::fill(cols, cols + n, 0);
        const std::size_t end = std::min(m, b + 64);
        for (std::size_t s = b; s < end; ++s)
          for (std::uint64_t d = (fx[s] ^ fy[s]) & mask; d; d &= d - 1)
            cols[std::countr_zero(d)] |= std::uint64_t{1} << (s - b);
        // Samples past the end of a partial block are 0 in every column: they agree.
        std::size_t p = 0;
        for (int j = 0; j < n; ++j)
          for (int k = j + 1; k < n; ++k) disagree[p++] += std::popcount(cols[j] ^ cols[k]);
      }
    }
    std::size_t p = 0;
    for (int j = 0; j < n; ++j)
      for (int k = j + 1; k < n; ++k, ++p) {
        const double c = 1.0 - 2.0 * static_cast<double>(disagree[p]) / N;
        out.chi2 += N * c * c;
        if (std::fabs(c) > worst) {
          worst = std::fabs(c);
          out.worst_input_bit = i;
          out.worst_output_bits[0] = j;
          out.worst_output_bits[1] = k;
          out.worst_correlation = c;
        }
      }
  }
  out.p_value = chi2_survival(out.chi2, static_cast<double>(out.cells));
  out.verdict = verdict_for_p_value(out.p_value);
  return out;
}

}  // namespace mixforge::avalanche
