// The second-order differential f(x) ^ f(x ^ a) ^ f(x ^ b) ^ f(x ^ a ^ b): an ideal
// function passes with calibrated p-values; functions of low algebraic degree (linear,
// quadratic) and a lone multiply fail; the exact count equals a plain loop over every x;
// results are deterministic in the seed.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <set>

#include "avalanche/evaluator.hpp"
#include "avalanche/count/sample_stream.hpp"
#include "avalanche/stats/second_order_differential.hpp"
#include "mixer/text_form.hpp"
#include "mixer/width.hpp"

using namespace mixforge;

namespace {

// An ideal random function of n bits: three keyed SplitMix64 finalisers in a row, cut to n
// bits. (One is not enough here: SplitMix64's finaliser, like every xorshift-multiply
// function of two or three rounds, fails this measure itself.)
avalanche::BatchFunction sod_random_function(int n, std::uint64_t key) {
  return [n, key](const std::uint64_t* in, std::uint64_t* out, std::size_t m) {
    for (std::size_t k = 0; k < m; ++k) {
      std::uint64_t z = avalanche::sample_input(key, in[k]);
      z = avalanche::sample_input(key ^ 0x5555555555555555ull, z);
      out[k] = avalanche::sample_input(key ^ 0xaaaaaaaaaaaaaaaaull, z) & mixer::width_mask(n);
    }
  };
}

// Degree 2 over GF(2): every second derivative is a constant.
avalanche::BatchFunction sod_quadratic(int n) {
  return [n](const std::uint64_t* in, std::uint64_t* out, std::size_t m) {
    const std::uint64_t mask = mixer::width_mask(n);
    for (std::size_t k = 0; k < m; ++k) {
      const std::uint64_t x = in[k];
      const std::uint64_t r1 = ((x << 1) | (x >> (n - 1))) & mask, r2 = ((x << 2) | (x >> (n - 2))) & mask;
      out[k] = x ^ (r1 & r2);
    }
  };
}

avalanche::BatchFunction sod_compiled(const char* text, int width) {
  static const auto ev = avalanche::Evaluator::with_own_engine();
  return ev->batch_function(mixer::parse_program(text, {.width = width}));
}

const char* const sod_linear = "x ^= x >> 3; x ^= x << 5;";  // linear over GF(2): D = 0
const char* sod_multiply(int n) { return n == 16 ? "x *= 0x79b9;" : "x *= 0x9e3779b9;"; }
const char* const sod_triple32 =
    "x ^= x >> 17; x *= 0xed5ad4bb; x ^= x >> 11; x *= 0xac4c1b51; x ^= x >> 15; x *= 0x31848bab; x ^= x >> 14;";

}  // namespace

TEST(SecondOrderDifferential, PairsAreEverySingleBitPairAndDistinctDisjointWeightTwoMasks) {
  for (int n : {2, 3, 4, 5, 16, 64}) {
    const auto pairs = avalanche::second_order_pairs(n, 7);
    const std::size_t singles = static_cast<std::size_t>(n) * (n - 1) / 2;
    // n = 4: only 3 unordered pairs of disjoint weight-2 masks exist.
    const std::size_t twos = n < 4 ? 0 : n == 4 ? 3 : static_cast<std::size_t>(n);
    ASSERT_EQ(pairs.size(), singles + twos) << n;
    std::set<std::pair<std::uint64_t, std::uint64_t>> seen;
    for (std::size_t p = 0; p < pairs.size(); ++p) {
      const auto [a, b] = pairs[p];
      EXPECT_EQ(a & b, 0u);
      EXPECT_LT(a, b);
      EXPECT_EQ(std::popcount(a), p < singles ? 1 : 2);
      EXPECT_EQ(std::popcount(b), p < singles ? 1 : 2);
      EXPECT_EQ((a | b) & ~mixer::width_mask(n), 0u);
      EXPECT_TRUE(seen.insert({a, b}).second) << "duplicate pair at width " << n;
    }
  }
  EXPECT_EQ(avalanche::second_order_pairs(32, 1), avalanche::second_order_pairs(32, 1));
  EXPECT_NE(avalanche::second_order_pairs(32, 1).back(), avalanche::second_order_pairs(32, 2).back());
  // The smallest widths count exactly: one coset per pair at 2 bits.
  for (int n : {2, 3, 4, 5}) {
    const auto r = avalanche::second_order_differential(sod_random_function(n, 2), n, 1u << 14, 1);
    EXPECT_TRUE(r.exact);
    EXPECT_EQ(r.samples_per_pair, std::uint64_t{1} << (n - 2));
    EXPECT_EQ(r.cells, r.pairs.size() * n);
    EXPECT_GE(r.p_value, 0.0);
  }
  // One bit: nothing to test.
  const auto one = avalanche::second_order_differential(sod_random_function(1, 1), 1, 100, 1);
  EXPECT_EQ(one.cells, 0u);
  EXPECT_EQ(one.p_value, 1.0);
  EXPECT_EQ(one.verdict, avalanche::Verdict::passed);
}

TEST(SecondOrderDifferential, ExactCountsEqualAPlainLoopOverEveryInput) {
  for (const auto& [name, f] : {std::pair{"random", sod_random_function(12, 3)},
                                std::pair{"compiled", sod_compiled("x ^= x >> 5; x *= 0x6b5; x ^= x >> 6;", 12)}}) {
    const int n = 12;
    const auto r = avalanche::second_order_differential(f, n, 1u << 10, 5);
    ASSERT_TRUE(r.exact) << name;
    EXPECT_EQ(r.samples_per_pair, 1u << (n - 2));
    EXPECT_EQ(r.samples, r.samples_per_pair * r.pairs.size());
    // Every x, each coset x + <a, b> seen 4 times: the counts are 4 times the measure's.
    std::vector<std::uint64_t> table(1u << n), in(1u << n);
    for (std::uint64_t x = 0; x < in.size(); ++x) in[x] = x;
    f(in.data(), table.data(), in.size());
    std::vector<std::uint64_t> histogram(n + 1, 0);
    double chi2 = 0, pair_chi2 = 0;
    int pair_dof = 0;
    for (std::size_t p = 0; p < r.pairs.size(); ++p) {
      const auto [a, b] = r.pairs[p];
      std::vector<std::uint64_t> ones(n, 0), own(n + 1, 0);
      for (std::uint64_t x = 0; x < table.size(); ++x) {
        const std::uint64_t d = table[x] ^ table[x ^ a] ^ table[x ^ b] ^ table[x ^ a ^ b];
        ++histogram[std::popcount(d)];
        ++own[std::popcount(d)];
        for (int k = 0; k < n; ++k) ones[k] += d >> k & 1;
      }
      for (int w = 0; w <= n; ++w) {
        ASSERT_EQ(own[w] % 4, 0u);
        own[w] /= 4;
        EXPECT_EQ(r.pair_weight_histograms[p * (n + 1) + w], own[w]) << name << " pair " << p << " weight " << w;
      }
      const auto fit = avalanche::binomial_fit(own);
      pair_chi2 += fit.chi2;
      pair_dof += fit.dof;
      for (int k = 0; k < n; ++k) {
        ASSERT_EQ(ones[k] % 4, 0u);
        EXPECT_EQ(r.counts[p * n + k], ones[k] / 4) << name << " pair " << p << " bit " << k;
        const double N = static_cast<double>(r.samples_per_pair), z = (2.0 * ones[k] / 4 - N) / std::sqrt(N);
        chi2 += z * z;
      }
    }
    for (int w = 0; w <= n; ++w) EXPECT_EQ(r.weight_histogram[w], histogram[w] / 4) << name << " weight " << w;
    EXPECT_NEAR(r.bits_chi2, chi2, 1e-9 * chi2) << name;
    EXPECT_NEAR(r.pair_weight_chi2, pair_chi2, 1e-9 * pair_chi2) << name;
    EXPECT_EQ(r.pair_weight_dof, pair_dof) << name;
    EXPECT_GT(pair_dof, 0);
    EXPECT_EQ(r.cells, r.pairs.size() * n);
  }
}

TEST(SecondOrderDifferential, IdealFunctionPassesWithCalibratedPValues) {
  // Exact at 16 bits and sampled at 32 and 64: an ideal function passes, and over several
  // keys the p-values spread over (0, 1) rather than crowding at 0 or at 1.
  struct Case {
    int width;
    std::uint64_t samples;
    int keys;
  };
  for (const Case c : {Case{16, 1u << 14, 12}, Case{32, 1u << 10, 8}, Case{64, 1u << 8, 4}}) {
    std::vector<double> ps;
    for (int key = 1; key <= c.keys; ++key) {
      const auto r = avalanche::second_order_differential(sod_random_function(c.width, 1000 + key), c.width, c.samples,
                                                          static_cast<std::uint64_t>(key));
      EXPECT_EQ(r.exact, c.width == 16);
      EXPECT_GT(r.p_value, 1e-3) << c.width << " key " << key;
      EXPECT_EQ(r.verdict, avalanche::Verdict::passed) << c.width << " key " << key;
      // chi2 ~ dof: within 6 standard deviations sqrt(2 dof).
      EXPECT_NEAR(r.bits_chi2, static_cast<double>(r.cells), 6 * std::sqrt(2.0 * r.cells)) << c.width;
      EXPECT_NEAR(r.weight.mean, c.width / 2.0, 0.05) << c.width;
      EXPECT_LT(std::fabs(r.worst_z), 6.5) << c.width;
      EXPECT_EQ(r.constant_cells, 0u) << c.width;
      ps.push_back(r.bits_p_value);
      ps.push_back(r.weight.p_value);
      ps.push_back(r.pair_weight_p_value);
    }
    std::sort(ps.begin(), ps.end());
    // Uniform p-values: the median of 12..36 of them is in (0.1, 0.9) but for chance
    // below 1e-3; none is below 1e-4 (all of them together: p < 0.004).
    const double median = ps[ps.size() / 2];
    EXPECT_GT(median, 0.1) << c.width;
    EXPECT_LT(median, 0.9) << c.width;
    EXPECT_GT(ps.front(), 1e-4) << c.width;
  }
}

TEST(SecondOrderDifferential, LinearAndQuadraticFunctionsFail) {
  for (int n : {16, 32, 64}) {
    // Linear over GF(2): every D is 0; every cell's probability is 0.
    const auto lin =
        avalanche::second_order_differential(sod_compiled(sod_linear, n), n, n == 16 ? 1u << 14 : 1u << 10, 1);
    EXPECT_EQ(lin.exact, n == 16);
    EXPECT_EQ(lin.p_value, 0.0) << n;
    EXPECT_EQ(lin.verdict, avalanche::Verdict::failed) << n;
    EXPECT_EQ(lin.weight_histogram[0], lin.samples) << n;
    EXPECT_EQ(lin.worst_probability, 0.0);
    EXPECT_EQ(lin.worst_z, -std::sqrt(static_cast<double>(lin.samples_per_pair)));
    EXPECT_EQ(lin.constant_cells, lin.cells);
    // Degree 2: D is a constant for each pair (probabilities 0 or 1).
    const auto quad = avalanche::second_order_differential(sod_quadratic(n), n, 1u << 10, 1);
    EXPECT_EQ(quad.verdict, avalanche::Verdict::failed) << n;
    EXPECT_EQ(quad.constant_cells, quad.cells);
  }
}

TEST(SecondOrderDifferential, LoneMultiplyAndTwoRoundFunctionsFail) {
  for (int n : {16, 32}) {
    const auto mul = avalanche::second_order_differential(sod_compiled(sod_multiply(n), n), n, 1u << 12, 1);
    EXPECT_EQ(mul.verdict, avalanche::Verdict::failed) << n;
    EXPECT_LT(mul.p_value, 1e-100) << n;
    // Carries only move upwards: for {e_i, e_j}, D is 0 below bit max(i, j).
    EXPECT_EQ(mul.counts[0 * n + 0], 0u);  // pair {e_0, e_1}, output bit 0
    EXPECT_EQ(std::fabs(mul.worst_probability - 0.5), 0.5);
    EXPECT_GE(mul.constant_cells, static_cast<std::uint64_t>(n * (n - 1) / 2));
  }
  // lowbias32: x ^= x >> 16 maps {e_15, e_31} to another basis of the same plane, and a
  // flip of bit 31 before the multiply is a flip of bit 31 after it, so the first round is
  // affine on every coset x + <e_15, e_31>. D is then a second derivative of the rest with
  // one difference e_31, which x ^= x >> 15 makes e_16 ^ e_31; bits 0..16 of the second
  // product depend on that flip linearly (bit 16 toggles, the rest stay), so bits 0..16 of
  // its D are 0, and after the last x ^= x >> 16 output bits 0 and 16 of D are always 0.
  const char* lowbias32 = "x ^= x >> 16; x *= 0x7feb352d; x ^= x >> 15; x *= 0x846ca68b; x ^= x >> 16;";
  const auto lb = avalanche::second_order_differential(sod_compiled(lowbias32, 32), 32, 1u << 12, 1);
  EXPECT_EQ(lb.verdict, avalanche::Verdict::failed);
  const auto& pairs = lb.pairs;
  const auto at = std::find(pairs.begin(), pairs.end(), avalanche::DifferencePair{1u << 15, 1u << 31}) - pairs.begin();
  ASSERT_LT(static_cast<std::size_t>(at), pairs.size());
  EXPECT_EQ(lb.counts[at * 32 + 0], 0u);
  EXPECT_EQ(lb.counts[at * 32 + 16], 0u);
  EXPECT_GE(lb.constant_cells, 2u);
  EXPECT_EQ(lb.worst_probability, 0.0);
}

TEST(SecondOrderDifferential, Triple32FailsTheWeightOfAFewPairs) {
  // triple32 loses a round for {e_(i-17), e_i} at the top (its first shift is 17), as
  // lowbias32 does for {e_(i-16), e_i}, though less: no cell is far from 1/2, but the bits
  // of D move together, and the pair {e_14, e_31} alone gives a weight chi2 in the
  // thousands at 2^18 inputs per pair (the standard size). The histogram of all pairs
  // together dilutes it; pair by pair it shows.
  const auto f = sod_compiled(sod_triple32, 32);
  const auto r = avalanche::second_order_differential(f, 32, 1u << 18, 1);
  EXPECT_EQ(r.bits_verdict, avalanche::Verdict::passed) << r.bits_p_value;
  EXPECT_EQ(r.constant_cells, 0u);
  EXPECT_LT(r.pair_weight_p_value, 1e-6);
  EXPECT_EQ(r.verdict, avalanche::Verdict::failed);
  EXPECT_EQ(r.worst_weight_pair, (avalanche::DifferencePair{1u << 14, 1u << 31}));
  EXPECT_GT(r.worst_weight_fit.chi2, 1000);
}

TEST(SecondOrderDifferential, DeterministicInTheSeed) {
  const auto f = sod_compiled(sod_triple32, 32);
  const auto a = avalanche::second_order_differential(f, 32, 1u << 10, 9);
  const auto b = avalanche::second_order_differential(f, 32, 1u << 10, 9);
  const auto c = avalanche::second_order_differential(f, 32, 1u << 10, 10);
  EXPECT_EQ(a.counts, b.counts);
  EXPECT_EQ(a.weight_histogram, b.weight_histogram);
  EXPECT_EQ(a.bits_chi2, b.bits_chi2);
  EXPECT_NE(a.bits_chi2, c.bits_chi2);
  // Exact: the single-bit pairs' counts do not depend on the seed (only the weight-2 pairs do).
  const auto g = sod_random_function(16, 4);
  const auto e1 = avalanche::second_order_differential(g, 16, 1u << 14, 1);
  const auto e2 = avalanche::second_order_differential(g, 16, 1u << 14, 2);
  const std::size_t singles = 16 * 15 / 2 * 16;
  EXPECT_TRUE(std::equal(e1.counts.begin(), e1.counts.begin() + singles, e2.counts.begin()));
  EXPECT_THROW(avalanche::second_order_differential(g, 16, 0, 1), std::invalid_argument);
  EXPECT_THROW(avalanche::second_order_differential(g, 65, 1, 1), std::invalid_argument);
  std::atomic<bool> cancel{true};
  EXPECT_THROW(avalanche::second_order_differential(f, 32, 1u << 10, 1, &cancel), avalanche::EvaluationCancelled);
}
