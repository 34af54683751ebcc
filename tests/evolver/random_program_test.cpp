#include <gtest/gtest.h>

#include <map>

#include "evolver/search/random_program.hpp"

using namespace mixforge;
using namespace mixforge::evolver;

TEST(RandomProgram, PrimalityAgreesWithTrialDivision) {
  auto slow = [](std::uint64_t n) {
    if (n < 2) return false;
    for (std::uint64_t d = 2; d * d <= n; ++d)
      if (n % d == 0) return false;
    return true;
  };
  for (std::uint64_t n = 0; n < 20000; ++n) ASSERT_EQ(is_prime(n), slow(n)) << n;
  EXPECT_TRUE(is_prime(4294967291ull));            // largest 32-bit prime
  EXPECT_TRUE(is_prime(18446744073709551557ull));  // largest 64-bit prime
  EXPECT_FALSE(is_prime(3215031751ull));           // strong pseudoprime to bases 2, 3, 5, 7
}

TEST(RandomProgram, ProgramsAreValidAtEveryWidth) {
  Rng rng(7, 0);
  std::vector<mixer::StepKind> all;
  for (int k = 0; k < mixer::step_kind_count; ++k) all.push_back(static_cast<mixer::StepKind>(k));
  for (int w = 1; w <= 64; ++w) {
    ProgramShape shape{w, 1, 6, all, {}};
    for (int i = 0; i < 300; ++i) {
      const mixer::Program p = random_program(shape, rng);
      ASSERT_NO_THROW(mixer::validate(p)) << p.canonical();
      ASSERT_GE(p.size(), 1u);
      ASSERT_LE(p.size(), 6u);
      ASSERT_EQ(p.width(), w);
    }
  }
}

TEST(RandomProgram, ConstantsSuitTheWidth) {
  Rng rng(3, 1);
  const int n = 32;
  int large = 0, prime_or_semi = 0, shift_sum = 0;
  const int trials = 2000;
  for (int i = 0; i < trials; ++i) {
    const std::uint64_t m = random_multiplier(n, rng);
    ASSERT_EQ(m & 1, 1u);
    ASSERT_LE(m, mixer::width_mask(n));
    large += m >> (n - 1);
    prime_or_semi += is_prime(m);
    const std::uint64_t k = random_shift(n, rng);
    ASSERT_GE(k, 1u);
    ASSERT_LE(k, 31u);
    shift_sum += static_cast<int>(k);
  }
  EXPECT_GT(large, trials * 7 / 10);  // mostly close to 2^n
  EXPECT_GT(prime_or_semi, trials * 4 / 10);
  EXPECT_NEAR(double(shift_sum) / trials, 16.0, 1.5);  // about n / 2
}

TEST(RandomProgram, KindSequenceIsFollowed) {
  Rng rng(1, 2);
  ProgramShape shape{7,
                     1,
                     5,
                     {},
                     {mixer::StepKind::xorshift_right, mixer::StepKind::mul_const, mixer::StepKind::rotate}};
  for (int i = 0; i < 200; ++i) {
    const mixer::Program p = random_program(shape, rng);
    ASSERT_EQ(p.size(), 3u);
    EXPECT_EQ(p.steps()[0].kind, mixer::StepKind::xorshift_right);
    EXPECT_EQ(p.steps()[1].kind, mixer::StepKind::mul_const);
    EXPECT_EQ(p.steps()[2].kind, mixer::StepKind::rotate);
    ASSERT_NO_THROW(mixer::validate(p));
  }
}

TEST(RandomProgram, KindWeightsSteerTheDraw) {
  Rng rng(4, 4);
  const std::vector<mixer::StepKind> kinds{mixer::StepKind::xor_const, mixer::StepKind::mul_const,
                                           mixer::StepKind::rotate};
  KindWeights w{};
  w[static_cast<int>(mixer::StepKind::mul_const)] = 3;
  w[static_cast<int>(mixer::StepKind::rotate)] = 1;  // xor-const: 0, never drawn
  int counts[mixer::step_kind_count] = {};
  for (int i = 0; i < 40000; ++i) ++counts[static_cast<int>(random_step(kinds, 32, rng, &w).kind)];
  EXPECT_EQ(counts[static_cast<int>(mixer::StepKind::xor_const)], 0);
  EXPECT_NEAR(counts[static_cast<int>(mixer::StepKind::mul_const)] / 40000.0, 0.75, 0.02);
}

namespace {
// m = p * q with p, q prime, found by trial division (m < 2^32 here), or {0, 0}.
std::pair<std::uint64_t, std::uint64_t> two_prime_factors(std::uint64_t m) {
  for (std::uint64_t d = 3; d * d <= m; d += 2)
    if (m % d == 0) return is_prime(d) && is_prime(m / d) ? std::pair{d, m / d} : std::pair{std::uint64_t{0}, std::uint64_t{0}};
  return {0, 0};
}
}  // namespace

// The middle branch of random_multiplier: 3 draws in 10 are a product of two primes close to
// 2^n, one of them near 2^(n/2) (in [2^(n/2-1), 1.5 * 2^(n/2)]), with the top bit set.
// Classifies every draw by factoring it: large primes (5 in 10, plus the primes among the
// uniform 2 in 10), such semiprimes (3 in 10, plus the rare ones among the uniform draws),
// anything else (the uniform branch).
TEST(RandomProgram, SemiprimeMultipliersAreTwoPrimesNearTheSquareRoot) {
  for (int width : {16, 24, 32}) {
    SCOPED_TRACE("width " + std::to_string(width));
    Rng rng(11, static_cast<std::uint64_t>(width));
    const int half = width / 2;
    const std::uint64_t plo = std::uint64_t{1} << (half - 1);
    const std::uint64_t phi = (std::uint64_t{1} << half) + (std::uint64_t{1} << (half - 1));
    const std::uint64_t top = std::uint64_t{1} << (width - 1);
    const int trials = 3000;
    int primes = 0, semiprimes = 0, other = 0;
    for (int i = 0; i < trials; ++i) {
      const std::uint64_t m = random_multiplier(width, rng);
      ASSERT_EQ(m & 1, 1u);
      ASSERT_LE(m, mixer::width_mask(width));
      if (is_prime(m)) {
        ++primes;
        continue;
      }
      const auto [p, q] = two_prime_factors(m);
      const bool near_root = p && ((p >= plo && p <= phi) || (q >= plo && q <= phi));
      if (near_root && m >= top) {
        ++semiprimes;
        EXPECT_EQ(p * q, m);
      } else {
        ++other;
      }
    }
    // Expected shares: semiprimes 0.30 (+ a few uniform draws), primes 0.50 + the uniform
    // draws' primes, the rest below 0.20. Binomial sd at 3000 draws is under 0.01.
    EXPECT_GT(semiprimes, trials * 26 / 100);
    EXPECT_LT(semiprimes, trials * 36 / 100);
    EXPECT_GT(primes, trials * 46 / 100);
    EXPECT_LT(primes, trials * 62 / 100);
    EXPECT_LT(other, trials * 21 / 100);
    EXPECT_GT(other, trials * 8 / 100);  // the uniform branch is still drawn
  }
}
