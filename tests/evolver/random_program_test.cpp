#include <gtest/gtest.h>

#include <map>

#include "evolver/random_program.hpp"

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
  std::vector<StepKind> all;
  for (int k = 0; k < step_kind_count; ++k) all.push_back(static_cast<StepKind>(k));
  for (int w = 1; w <= 64; ++w) {
    ProgramShape shape{w, 1, 6, all, {}};
    for (int i = 0; i < 300; ++i) {
      const Program p = random_program(shape, rng);
      ASSERT_NO_THROW(validate(p)) << p.canonical();
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
    ASSERT_LE(m, width_mask(n));
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
  ProgramShape shape{7, 1, 5, {}, {StepKind::xorshift_right, StepKind::mul_const, StepKind::rotate}};
  for (int i = 0; i < 200; ++i) {
    const Program p = random_program(shape, rng);
    ASSERT_EQ(p.size(), 3u);
    EXPECT_EQ(p.steps()[0].kind, StepKind::xorshift_right);
    EXPECT_EQ(p.steps()[1].kind, StepKind::mul_const);
    EXPECT_EQ(p.steps()[2].kind, StepKind::rotate);
    ASSERT_NO_THROW(validate(p));
  }
}

TEST(RandomProgram, KindWeightsSteerTheDraw) {
  Rng rng(4, 4);
  const std::vector<StepKind> kinds{StepKind::xor_const, StepKind::mul_const, StepKind::rotate};
  KindWeights w{};
  w[static_cast<int>(StepKind::mul_const)] = 3;
  w[static_cast<int>(StepKind::rotate)] = 1;  // xor-const: 0, never drawn
  int counts[step_kind_count] = {};
  for (int i = 0; i < 40000; ++i) ++counts[static_cast<int>(random_step(kinds, 32, rng, &w).kind)];
  EXPECT_EQ(counts[static_cast<int>(StepKind::xor_const)], 0);
  EXPECT_NEAR(counts[static_cast<int>(StepKind::mul_const)] / 40000.0, 0.75, 0.02);
}
