#include "avalanche/stats/second_order_differential.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>
#include <string>

#include "avalanche/counts.hpp"
#include "avalanche/count/sample_stream.hpp"
#include "mixer/width.hpp"

namespace mixforge::avalanche {

namespace {

// Counts of set bits by position over up to 2^planes - 1 words, bit-sliced: plane k holds
// bit k of every position's count. Sixteen words at a time go through a carry-save adder
// tree (Harley and Seal) that keeps the four low planes in registers; what carries out of
// them (one word per sixteen) ripples into the planes above.
class SlicedTally {
 public:
  static constexpr int planes = 11;  // up to 2047 words between flushes
  static constexpr std::size_t capacity = (std::size_t{1} << planes) - 1;

  [[gnu::always_inline]] void add(std::uint64_t d) { ripple(d, 0); }
  [[gnu::always_inline]] void add16(const std::uint64_t* d) {
    std::uint64_t ones = p_[0], twos = p_[1], fours = p_[2], eights = p_[3];
    std::uint64_t twos_a, twos_b, fours_a, fours_b, eights_a, eights_b, sixteens;
    csa(twos_a, ones, ones, d[0], d[1]);
    csa(twos_b, ones, ones, d[2], d[3]);
    csa(fours_a, twos, twos, twos_a, twos_b);
    csa(twos_a, ones, ones, d[4], d[5]);
    csa(twos_b, ones, ones, d[6], d[7]);
    csa(fours_b, twos, twos, twos_a, twos_b);
    csa(eights_a, fours, fours, fours_a, fours_b);
    csa(twos_a, ones, ones, d[8], d[9]);
    csa(twos_b, ones, ones, d[10], d[11]);
    csa(fours_a, twos, twos, twos_a, twos_b);
    csa(twos_a, ones, ones, d[12], d[13]);
    csa(twos_b, ones, ones, d[14], d[15]);
    csa(fours_b, twos, twos, twos_a, twos_b);
    csa(eights_b, fours, fours, fours_a, fours_b);
    csa(sixteens, eights, eights, eights_a, eights_b);
    p_[0] = ones, p_[1] = twos, p_[2] = fours, p_[3] = eights;
    ripple(sixteens, 4);
  }
  // Adds the counts to counts[0..n) and clears.
  void flush(std::uint64_t* counts, int n) {
    for (int k = 0; k < planes; ++k) {
      for (std::uint64_t w = p_[k]; w; w &= w - 1) {
        const int b = std::countr_zero(w);
        if (b < n) counts[b] += std::uint64_t{1} << k;
      }
      p_[k] = 0;
    }
  }

 private:
  // (high, low) = a + b + c, bit by bit.
  [[gnu::always_inline]] static void csa(std::uint64_t& high, std::uint64_t& low, std::uint64_t a, std::uint64_t b,
                                         std::uint64_t c) {
    const std::uint64_t u = a ^ b;
    high = (a & b) | (u & c);
    low = u ^ c;
  }
  [[gnu::always_inline]] void ripple(std::uint64_t d, int k) {
    for (; d; ++k) {
      const std::uint64_t carry = p_[k] & d;
      p_[k] ^= d;
      d = carry;
    }
  }
  std::uint64_t p_[planes] = {};
};

// Adds the words d[0..m) (m <= SlicedTally::capacity) to the tally and their weights to the
// histogram. The weight is a popcount per word: without the popcnt instruction (this file
// is built for baseline x86-64) it is a library call, and that took three quarters of the
// measure's time. Four histograms in turn: consecutive words mostly have the same weight,
// and one would make each increment wait for the last.
[[gnu::always_inline]] inline void tally_words_body(const std::uint64_t* d, std::size_t m, SlicedTally& tally,
                                                    std::uint64_t* histogram, int n) {
  std::uint32_t h[4][65] = {};
  std::size_t s = 0;
  for (; s + 16 <= m; s += 16) {
    tally.add16(d + s);
    for (std::size_t t = 0; t < 16; t += 4) {
      ++h[0][__builtin_popcountll(d[s + t])];
      ++h[1][__builtin_popcountll(d[s + t + 1])];
      ++h[2][__builtin_popcountll(d[s + t + 2])];
      ++h[3][__builtin_popcountll(d[s + t + 3])];
    }
  }
  for (; s < m; ++s) {
    tally.add(d[s]);
    ++h[0][__builtin_popcountll(d[s])];
  }
  for (int w = 0; w <= n; ++w) histogram[w] += std::uint64_t{h[0][w]} + h[1][w] + h[2][w] + h[3][w];
}
void tally_words_generic(const std::uint64_t* d, std::size_t m, SlicedTally& tally, std::uint64_t* histogram, int n) {
  tally_words_body(d, m, tally, histogram, n);
}
using TallyWords = void (*)(const std::uint64_t*, std::size_t, SlicedTally&, std::uint64_t*, int);
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
__attribute__((target("popcnt"))) void tally_words_popcnt(const std::uint64_t* d, std::size_t m, SlicedTally& tally,
                                                          std::uint64_t* histogram, int n) {
  tally_words_body(d, m, tally, histogram, n);
}
TallyWords pick_tally_words() { return __builtin_cpu_supports("popcnt") ? tally_words_popcnt : tally_words_generic; }
#else
TallyWords pick_tally_words() { return tally_words_generic; }
#endif

// v with a zero bit inserted at position k.
std::uint64_t insert_zero(std::uint64_t v, int k) {
  return ((v >> k) << (k + 1)) | (v & ((std::uint64_t{1} << k) - 1));
}

}  // namespace

std::vector<DifferencePair> second_order_pairs(int n, std::uint64_t seed) {
  if (n < 1 || n > 64) throw std::invalid_argument("second-order differential needs a width of 1..64");
  std::vector<DifferencePair> pairs;
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j) pairs.push_back({std::uint64_t{1} << i, std::uint64_t{1} << j});
  if (n < 4) return pairs;
  // Distinct unordered pairs of disjoint weight-2 masks: C(n, 2) C(n - 2, 2) / 2 of them
  // (3 at 4 bits); n of them where there are that many.
  const double possible = n * (n - 1) / 2.0 * ((n - 2) * (n - 3) / 2.0) / 2.0;
  const std::size_t want = static_cast<std::size_t>(std::min<double>(n, possible));
  const std::size_t singles = pairs.size();
  const std::uint64_t pair_seed = seed ^ 0x2d1f0e5ca11ab1e5ull;
  std::uint64_t draw = 0;
  int bits[64];
  while (pairs.size() - singles < want) {
    for (int u = 0; u < n; ++u) bits[u] = u;
    for (int u = 0; u < 4; ++u) {  // partial Fisher-Yates: 4 distinct bits
      const std::uint64_t r = sample_input(pair_seed, draw++);
      const int pick = u + static_cast<int>((static_cast<unsigned __int128>(r) * static_cast<unsigned>(n - u)) >> 64);
      std::swap(bits[u], bits[pick]);
    }
    std::uint64_t a = (std::uint64_t{1} << bits[0]) | (std::uint64_t{1} << bits[1]);
    std::uint64_t b = (std::uint64_t{1} << bits[2]) | (std::uint64_t{1} << bits[3]);
    if (a > b) std::swap(a, b);
    const bool seen = std::any_of(pairs.begin() + static_cast<std::ptrdiff_t>(singles), pairs.end(),
                                  [&](const DifferencePair& p) { return p.a == a && p.b == b; });
    if (!seen) pairs.push_back({a, b});
  }
  return pairs;
}

SecondOrderDifferential second_order_differential(const BatchFunction& f, int n, std::uint64_t samples_per_pair,
                                                  std::uint64_t seed, const std::atomic<bool>* cancel) {
  if (n < 1 || n > 64) throw std::invalid_argument("second-order differential needs a width of 1..64");
  if (samples_per_pair == 0)
    throw std::invalid_argument("second-order differential needs at least one sample per pair");
  const std::uint64_t mask = mixer::width_mask(n);
  SecondOrderDifferential out;
  out.width = n;
  out.pairs = second_order_pairs(n, seed);
  out.single_bit_pairs = n * (n - 1) / 2;
  out.weight_two_pairs = static_cast<int>(out.pairs.size()) - out.single_bit_pairs;
  out.weight_histogram.assign(static_cast<std::size_t>(n) + 1, 0);
  const std::size_t P = out.pairs.size();
  out.cells = static_cast<std::uint64_t>(P) * static_cast<std::uint64_t>(n);
  if (P == 0) return out;

  const bool exact = n <= second_order_exact_max_width && samples_per_pair >= (std::uint64_t{1} << (n - 2));
  if (exact) samples_per_pair = std::uint64_t{1} << (n - 2);
  out.exact = exact;
  out.samples_per_pair = samples_per_pair;
  out.samples = samples_per_pair * P;
  out.counts.assign(P * static_cast<std::size_t>(n), 0);

  constexpr std::size_t chunk = 1024;  // <= SlicedTally::capacity
  static_assert(chunk <= SlicedTally::capacity);
  SlicedTally tally;
  static const TallyWords tally_words = pick_tally_words();
  const std::size_t bins = static_cast<std::size_t>(n) + 1;
  out.pair_weight_histograms.assign(P * bins, 0);
  std::vector<std::uint64_t> d(chunk);
  auto check_cancel = [&] {
    if (cancel && cancel->load(std::memory_order_relaxed)) throw EvaluationCancelled();
  };

  if (exact) {
    // f over every input, then each coset x + <a, b> once: the x with a zero at the lowest
    // bit of a and at the lowest bit of b (a & b == 0, so those two bits pick the coset's
    // member uniquely).
    const std::uint64_t size = std::uint64_t{1} << n;
    std::vector<std::uint64_t> in(chunk), table(size);
    for (std::uint64_t first = 0; first < size; first += chunk) {
      check_cancel();
      const std::size_t m = static_cast<std::size_t>(std::min<std::uint64_t>(chunk, size - first));
      for (std::size_t s = 0; s < m; ++s) in[s] = first + s;
      f(in.data(), table.data() + first, m);
    }
    for (std::uint64_t& v : table) v &= mask;
    for (std::size_t p = 0; p < P; ++p) {
      check_cancel();
      const auto [a, b] = out.pairs[p];
      const int lo = std::min(std::countr_zero(a), std::countr_zero(b));
      const int hi = std::max(std::countr_zero(a), std::countr_zero(b));
      std::uint64_t* counts = out.counts.data() + p * n;
      for (std::uint64_t first = 0; first < samples_per_pair; first += chunk) {
        const std::uint64_t end = std::min<std::uint64_t>(samples_per_pair, first + chunk);
        for (std::uint64_t t = first; t < end; ++t) {
          const std::uint64_t x = insert_zero(insert_zero(t, lo), hi);
          d[t - first] = table[x] ^ table[x ^ a] ^ table[x ^ b] ^ table[x ^ a ^ b];
        }
        tally_words(d.data(), static_cast<std::size_t>(end - first), tally,
                    out.pair_weight_histograms.data() + p * bins, n);
        tally.flush(counts, n);
      }
    }
  } else {
    // The same inputs for every pair: f(x) and f(x ^ e_i) serve all single-bit pairs.
    const std::uint64_t input_seed = seed ^ 0x5ec0d0d1ffe7e4c1ull;
    std::vector<std::uint64_t> x(chunk), fx(chunk), y(chunk), fa(chunk), fb(chunk), fab(chunk);
    std::vector<std::uint64_t> flipped(static_cast<std::size_t>(n) * chunk);  // f(x ^ e_i), row i
    auto eval = [&](std::uint64_t diff, std::uint64_t* result, std::size_t m) {
      for (std::size_t s = 0; s < m; ++s) y[s] = x[s] ^ diff;
      f(y.data(), result, m);
    };
    for (std::uint64_t first = 0; first < samples_per_pair; first += chunk) {
      check_cancel();
      const std::size_t m = static_cast<std::size_t>(std::min<std::uint64_t>(chunk, samples_per_pair - first));
      for (std::size_t s = 0; s < m; ++s) x[s] = sample_input(input_seed, first + s) & mask;
      f(x.data(), fx.data(), m);
      for (int i = 0; i < n; ++i) eval(std::uint64_t{1} << i, flipped.data() + static_cast<std::size_t>(i) * chunk, m);
      for (std::size_t p = 0; p < P; ++p) {
        const auto [a, b] = out.pairs[p];
        const std::uint64_t *ra, *rb;
        if (p < static_cast<std::size_t>(out.single_bit_pairs)) {
          ra = flipped.data() + static_cast<std::size_t>(std::countr_zero(a)) * chunk;
          rb = flipped.data() + static_cast<std::size_t>(std::countr_zero(b)) * chunk;
        } else {
          eval(a, fa.data(), m);
          eval(b, fb.data(), m);
          ra = fa.data();
          rb = fb.data();
        }
        eval(a ^ b, fab.data(), m);
        for (std::size_t s = 0; s < m; ++s) d[s] = (fx[s] ^ ra[s] ^ rb[s] ^ fab[s]) & mask;
        tally_words(d.data(), m, tally, out.pair_weight_histograms.data() + p * bins, n);
        tally.flush(out.counts.data() + p * n, n);
      }
    }
  }

  // The cells: z = (2c - N) / sqrt(N) ~ N(0, 1) for an ideal function.
  const double N = static_cast<double>(samples_per_pair);
  double worst = -1;
  for (std::size_t p = 0; p < P; ++p)
    for (int k = 0; k < n; ++k) {
      const double c = static_cast<double>(out.counts[p * n + k]);
      const double z = (2 * c - N) / std::sqrt(N);
      out.bits_chi2 += z * z;
      if (out.counts[p * n + k] == 0 || out.counts[p * n + k] == samples_per_pair) ++out.constant_cells;
      if (std::fabs(z) > worst) {
        worst = std::fabs(z);
        out.worst_pair = out.pairs[p];
        out.worst_output_bit = k;
        out.worst_probability = c / N;
        out.worst_z = z;
      }
    }
  out.bits_p_value = chi2_survival(out.bits_chi2, static_cast<double>(out.cells));
  out.bits_verdict = verdict_for_p_value(out.bits_p_value);
  // The weight of D, all pairs together and pair by pair.
  // Every pair has the same N and n, so the same bins and dof: the worst is the largest chi2
  // (p-values underflow to 0 for many pairs of a poor function).
  double worst_pair_chi2 = -1;
  for (std::size_t p = 0; p < P; ++p) {
    const std::vector<std::uint64_t> h(out.pair_weight_histograms.begin() + static_cast<std::ptrdiff_t>(p * bins),
                                       out.pair_weight_histograms.begin() +
                                           static_cast<std::ptrdiff_t>((p + 1) * bins));
    for (std::size_t w = 0; w < bins; ++w) out.weight_histogram[w] += h[w];
    const BinomialFit fit = binomial_fit(h);
    out.pair_weight_chi2 += fit.chi2;
    out.pair_weight_dof += fit.dof;
    if (fit.dof > 0 && fit.chi2 > worst_pair_chi2) {
      worst_pair_chi2 = fit.chi2;
      out.worst_weight_pair = out.pairs[p];
      out.worst_weight_fit = fit;
    }
  }
  out.weight = binomial_fit(out.weight_histogram);
  if (out.pair_weight_dof > 0) out.pair_weight_p_value = chi2_survival(out.pair_weight_chi2, out.pair_weight_dof);
  out.pair_weight_verdict = verdict_for_p_value(out.pair_weight_p_value);
  out.p_value = std::min(1.0, 3 * std::min({out.bits_p_value, out.weight.p_value, out.pair_weight_p_value}));
  out.verdict = verdict_for_p_value(out.p_value);
  return out;
}

}  // namespace mixforge::avalanche
