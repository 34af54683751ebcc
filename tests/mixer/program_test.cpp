#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "mixer/interpreter.hpp"
#include "mixer/program.hpp"
#include "support/random_program.hpp"
#include "support/reference_functions.hpp"

using namespace mixforge;

TEST(Program, CanonicalFormAndIdAreStable) {
  const mixer::Program p(32, {{mixer::StepKind::xorshift_right, 16}, {mixer::StepKind::mul_const, 0x7feb352d}});
  EXPECT_EQ(p.canonical(), "w32:xsr16,mul7feb352d");
  EXPECT_EQ(p.id().size(), 16u);
  EXPECT_EQ(p.id(), mixer::Program(p).id());
  EXPECT_NE(p.id(), mixer::Program(31, p.steps()).id());
  // Pinned: ids are stored in databases, so the hash must never change.
  EXPECT_EQ(p.id(), "826e8531764d9beb") << "canonical id changed";
}

TEST(Program, ValidationNamesTheBrokenRule) {
  auto msg = [](const mixer::Program& p, int max_steps = 64) -> std::string {
    try {
      mixer::validate(p, {max_steps});
    } catch (const mixer::ProgramError& e) {
      return std::to_string(e.step_index()) + ": " + e.what();
    }
    return "ok";
  };
  EXPECT_EQ(msg(mixer::Program(0, {})), "-1: width 0 is not supported (widths are 1..64)");
  EXPECT_EQ(msg(mixer::Program(65, {})), "-1: width 65 is not supported (widths are 1..64)");
  EXPECT_EQ(msg(mixer::Program(8, {{mixer::StepKind::mul_const, 4}})),
            "0: multiplier 0x4 is even; a multiply step needs an odd constant");
  EXPECT_EQ(msg(mixer::Program(8, {{mixer::StepKind::xor_const, 1}, {mixer::StepKind::rotate, 8}})),
            "1: rotation 8 is outside 1..7 for width 8");
  EXPECT_EQ(msg(mixer::Program(8, {{mixer::StepKind::add_const, 256}})),
            "0: constant 0x100 does not fit in 8 bits (largest is 0xff)");
  EXPECT_EQ(msg(mixer::Program(1, {{mixer::StepKind::xorshift_right, 1}})),
            "0: shift 1 is not possible at width 1 (no amount lies in 1..n-1)");
  EXPECT_EQ(msg(mixer::Program(8, {{mixer::StepKind::mul_const, 3}, {mixer::StepKind::mul_const, 5}}), 1),
            "-1: program has 2 steps; the limit is 1");
  EXPECT_EQ(msg(mixer::Program(64, {{mixer::StepKind::mul_const, ~0ull}, {mixer::StepKind::xorshift_left, 63}})), "ok");
}

TEST(Interpreter, MatchesHandWrittenLowbias32) {
  const mixer::Program p = mixforge::test::lowbias32();
  for (std::uint32_t x : {0u, 1u, 2u, 0x12345678u, 0xffffffffu, 0x80000000u})
    EXPECT_EQ(mixer::apply(p, x), mixforge::test::lowbias32_value(x)) << x;
}

TEST(Interpreter, ApplyInPlaceEqualsApplyForEveryKindAndWidth) {
  std::mt19937_64 rng(41);
  for (int width = 1; width <= 64; ++width) {
    for (int t = 0; t < 8; ++t) {
      const mixer::Program p = mixforge::testing::random_program(rng, width, 1 + t);
      // Values above the width too: apply masks its input first, and so must this.
      std::vector<std::uint64_t> values(37);
      for (auto& v : values) v = rng();
      std::vector<std::uint64_t> want;
      for (std::uint64_t v : values) want.push_back(mixer::apply(p, v));
      mixer::apply_in_place(p, values.data(), values.size());
      ASSERT_EQ(values, want) << p.canonical();
    }
  }
}

TEST(Interpreter, MasksEveryStepBelowTheMachineWord) {
  // 7-bit write-up function, computed as the write-up does: mask after the multiplies.
  const mixer::Program p(7, {{mixer::StepKind::xorshift_right, 4},
                             {mixer::StepKind::mul_const, 67},
                             {mixer::StepKind::xorshift_right, 3},
                             {mixer::StepKind::mul_const, 101},
                             {mixer::StepKind::xorshift_right, 4}});
  std::vector<bool> seen(128);
  for (unsigned x = 0; x < 128; ++x) {
    unsigned r = x;
    r ^= r >> 4; r = (r * 67) & 127; r ^= r >> 3; r = (r * 101) & 127; r ^= r >> 4;
    EXPECT_EQ(mixer::apply(p, x), r);
    seen[r] = true;
  }
  for (bool b : seen) EXPECT_TRUE(b);  // a bijection
  // Rotation at width 5 and xorshift-left masking.
  const mixer::Program q(5, {{mixer::StepKind::rotate, 2}, {mixer::StepKind::xorshift_left, 3}});
  EXPECT_EQ(mixer::apply(q, 0b10001), ((0b00110u) ^ (0b00110u << 3)) & 31u);
}
