// The RRC depth battery (avalanche/quality/rrc/): its streams, its statistics against exact
// values, its calibration on an ideal function, and depths of published functions against
// the published figures (tests-for-randomness, jonmaiga; cap 2^24 there).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <numeric>

#include "avalanche/stats/chi2_distribution.hpp"
#include "avalanche/evaluator.hpp"
#include "avalanche/quality/rrc/rrc_battery.hpp"
#include "avalanche/quality/rrc/stream_tests.hpp"
#include "mixer/text_form.hpp"
#include "support/reference_functions.hpp"

namespace mixforge::avalanche::rrc {
namespace {

TEST(RrcTransforms, FourPerBitInTheFieldsOrder) {
  const auto t = rrc_transforms(32);
  ASSERT_EQ(t.size(), 128u);
  EXPECT_EQ(transform_name(t[0]), "counter ror 0");
  EXPECT_EQ(transform_name(t[32 + 3]), "reversed ror 3");
  EXPECT_EQ(transform_name(t[64 + 31]), "complemented ror 31");
  EXPECT_EQ(transform_name(t[96]), "reversed complemented ror 0");
  EXPECT_EQ(apply(t[0], 5, 32), 5u);
  EXPECT_EQ(apply(t[1], 1, 32), 0x80000000u);   // ror 1
  EXPECT_EQ(apply(t[32], 1, 32), 0x80000000u);  // reversed
  EXPECT_EQ(apply(t[32], 1, 8), 0x80u);
  EXPECT_EQ(apply(t[64], 0, 16), 0xffffu);   // complemented
  EXPECT_EQ(apply(t[96 + 4], 3, 8), 0xf3u);  // ~reverse(3) = 0x3f at 8 bits, ror 4
  EXPECT_EQ(apply(rrc_transforms(64)[64], 1, 64), 0x8000000000000000ull);
}

TEST(RrcStatistics, DistributionsAgreeWithExactValues) {
  // chi2(2): P(X <= x) = 1 - exp(-x/2), both tails, far into the lower one.
  for (double x : {1e-12, 0.1, 2.0, 30.0}) {
    EXPECT_NEAR(chi2_cdf(x, 2), -std::expm1(-x / 2), 1e-15 + 1e-12 * -std::expm1(-x / 2));
    EXPECT_NEAR(chi2_cdf(x, 2) + chi2_survival(x, 2), 1.0, 1e-12);
  }
  EXPECT_NEAR(normal_two_sided(1.959963984540054), 0.05, 1e-12);
  // Kolmogorov: the 5 % point of sqrt(n) D is 1.358 for large n.
  EXPECT_NEAR(kolmogorov_survival(1.3581 / std::sqrt(1e6), 1000000), 0.05, 5e-4);
  EXPECT_GT(kolmogorov_survival(0.01, 128), 0.999);
  // GF(2) ranks: the classic 32 x 32 probabilities (Marsaglia's DIEHARD) and a total of 1.
  EXPECT_NEAR(gf2_rank_probability(32, 32), 0.2887880951, 1e-9);
  EXPECT_NEAR(gf2_rank_probability(32, 31), 0.5775761902, 1e-9);
  EXPECT_NEAR(gf2_rank_probability(32, 30), 0.1283502644, 1e-9);
  double total = 0;
  for (int r = 0; r <= 8; ++r) total += gf2_rank_probability(8, r);
  EXPECT_NEAR(total, 1.0, 1e-12);
}

TEST(RrcStatistics, LinearComplexityByBerlekampMassey) {
  EXPECT_EQ(linear_complexity(std::vector<std::uint8_t>(50, 0)), 0);
  std::vector<std::uint8_t> s(20, 0);
  s.back() = 1;
  EXPECT_EQ(linear_complexity(s), 20);  // a single late one needs the whole length
  // s_i = s_(i-1) ^ s_(i-4), a maximal 4-stage LFSR: complexity 4 however long.
  std::vector<std::uint8_t> lfsr{1, 0, 0, 0};
  while (lfsr.size() < 200) lfsr.push_back(lfsr[lfsr.size() - 1] ^ lfsr[lfsr.size() - 4]);
  EXPECT_EQ(linear_complexity(lfsr), 4);
}

TEST(RrcStatistics, PooledChiSquareIsTwoSided) {
  // Exactly as expected is too regular to be chance; far off is too irregular.
  const std::vector<double> e(100, 100.0);
  EXPECT_LT(pooled_chi2_p(e, e), 1e-9);
  std::vector<double> off = e;
  off[0] = 300;
  off[1] = 0;
  EXPECT_LT(pooled_chi2_p(off, e), 1e-9);
  EXPECT_EQ(pooled_chi2_p({3, 1}, {2, 2}), 1.0);  // one pooled cell: nothing to test
}

// An ideal function: splitmix64's finaliser of a keyed input, cut to 32 bits.
void ideal32(const std::uint64_t* in, std::uint64_t* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    std::uint64_t z = in[i] + 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    out[i] = (z ^ (z >> 31)) & 0xffffffffu;
  }
}

TEST(RrcBattery, AnIdealFunctionPassesWithUniformPValues) {
  // Every stream test's p-values over the 128 streams at 2^16 look uniform (the KS test is
  // far from failing), and the battery passes its cap.
  const BatchFunction f = ideal32;
  std::vector<double> ps;
  for (const auto& t : rrc_transforms(32)) {
    auto tests = make_stream_tests({32, 1u << 16, &f});
    std::vector<std::uint64_t> in(1u << 16), out(1u << 16);
    for (std::size_t i = 0; i < in.size(); ++i) in[i] = apply(t, i, 32);
    f(in.data(), out.data(), in.size());
    std::vector<TestResult> results;
    for (const auto& test : tests) {
      if (test->wanted() == 0) continue;
      test->feed(out.data(), test->wanted());
      test->finish(results);
    }
    for (const auto& r : results) ps.push_back(r.p);
  }
  ASSERT_GT(ps.size(), 128u * 12);
  // Mean of uniform p-values: 1/2, with a standard error of 1/sqrt(12 N).
  const double mean = std::accumulate(ps.begin(), ps.end(), 0.0) / static_cast<double>(ps.size());
  EXPECT_NEAR(mean, 0.5, 5 / std::sqrt(12.0 * static_cast<double>(ps.size())));
  const double small = static_cast<double>(std::count_if(ps.begin(), ps.end(), [](double p) { return p < 0.01; }));
  EXPECT_LT(small / static_cast<double>(ps.size()), 0.02);

  const RrcReport r = rrc_battery(f, 32, {10, 16});
  EXPECT_TRUE(r.passed_cap);
  EXPECT_EQ(r.depth_log2, 16);
  EXPECT_FALSE(r.first_failure.has_value());
  EXPECT_EQ(r.lengths.size(), 7u);
  EXPECT_EQ(r.streams, 128);
}

RrcReport depth_of(const char* text, int cap, int width = 32) {
  static const auto ev = Evaluator::with_own_engine();
  const mixer::Program p = mixer::parse_program(text, {.width = width});
  return rrc_battery(ev->batch_function(p), p.width(), {10, cap});
}

// Published depths (tests-for-randomness' 32-bit table) that this battery reproduces
// exactly; bench/results/quality/rrc-calibration.md has the whole table.
TEST(RrcBattery, PublishedFunctionsFailWhereTheFieldSays) {
  const RrcReport mx1 = depth_of("x ^= x >> 16; x *= 0x93528a6d; x ^= x >> 14;", 20);
  EXPECT_EQ(mx1.depth_log2, 10);
  const RrcReport lowbias32 =
      depth_of("x ^= x >> 16; x *= 0x7feb352d; x ^= x >> 15; x *= 0x846ca68b; x ^= x >> 16;", 20);
  EXPECT_EQ(lowbias32.depth_log2, 12);
  ASSERT_TRUE(lowbias32.first_failure.has_value());
  EXPECT_EQ(lowbias32.first_failure->test, "meta:sac");  // the published figure's test too
  const RrcReport best = depth_of("x ^= x >> 16; x *= 0x21f0aaad; x ^= x >> 15; x *= 0x735a2d97; x ^= x >> 15;", 20);
  EXPECT_EQ(best.depth_log2, 13);
  ASSERT_TRUE(best.first_failure.has_value());
  EXPECT_EQ(best.first_failure->test, "uniform");  // the published figure's test too
  EXPECT_LT(best.first_failure->p, failure_threshold);
  EXPECT_FALSE(best.passed_cap);
}

TEST(RrcBattery, DeterministicAndCapped) {
  const char* text = "x ^= x >> 8; x *= 0xa3d3; x ^= x >> 7; x *= 0x4b2d; x ^= x >> 9;";  // 16 bits
  auto a = to_json(depth_of(text, 24, 16)), b = to_json(depth_of(text, 24, 16));
  EXPECT_EQ(a["cap_log2"], 14);  // a 16-bit bijection: at most 2^14 of its 2^16 inputs
  a.erase("seconds");
  b.erase("seconds");
  for (auto* j : {&a, &b})
    for (auto& l : (*j)["lengths"]) l.erase("seconds");
  EXPECT_EQ(a, b);
  EXPECT_THROW(rrc_battery(ideal32, 7, {}), std::invalid_argument);
  try {
    rrc_battery(ideal32, 32, {20, 16});
    ADD_FAILURE() << "a first length above the cap was taken";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "the RRC battery's first length 2^20 must be at least 2^1 and at most its cap 2^16");
  }
}

TEST(RrcBattery, Cancels) {
  std::atomic<bool> cancel{true};
  EXPECT_THROW(rrc_battery(ideal32, 32, {10, 12}, &cancel), EvaluationCancelled);
}

}  // namespace
}  // namespace mixforge::avalanche::rrc

namespace mixforge::avalanche::rrc {

// Every record's stated depth, but the 32-bit ones that pass 2^24 (minutes each: the long
// test RrcRecordsLong.DeepThirtyTwoBitRecordsPassTheCap).
TEST(RrcBattery, RecordsHaveTheirStatedDepths) {
  const auto ev = Evaluator::with_own_engine();
  int checked = 0;
  for (const auto& r : test::reference_mixers("records.json")) {
    if (r.rrc_passed_cap && r.width > 16) continue;
    const mixer::Program p = mixer::parse_program(r.text, {.width = r.width});
    const RrcReport rep = rrc_battery(ev->batch_function(p), r.width, {10, r.rrc_cap_log2});
    EXPECT_EQ(rep.depth_log2, r.rrc_depth_log2) << r.name;
    EXPECT_EQ(rep.passed_cap, r.rrc_passed_cap) << r.name;
    EXPECT_EQ(rep.cap_log2, r.rrc_cap_log2) << r.name;
    ++checked;
  }
  EXPECT_EQ(checked, 6);
}

}  // namespace mixforge::avalanche::rrc
