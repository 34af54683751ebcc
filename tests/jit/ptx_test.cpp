// PTX text for programs (no GPU needed: the text is checked, not run).
#include <gtest/gtest.h>

#include <random>

#include "jit/engine.hpp"
#include "jit/ptx.hpp"
#include "support/random_program.hpp"

namespace mixforge::jit {
namespace {

TEST(Ptx, Lowbias32IsAKernelForHopper) {
  const Program p(32, {{StepKind::xorshift_right, 16}, {StepKind::mul_const, 0x7feb352d},
                       {StepKind::xorshift_right, 15}, {StepKind::mul_const, 0x846ca68b},
                       {StepKind::xorshift_right, 16}});
  const std::string ptx = emit_ptx(p);
  EXPECT_NE(ptx.find(".target sm_90"), std::string::npos) << ptx;
  EXPECT_NE(ptx.find(".entry mixforge_apply"), std::string::npos) << ptx;
  EXPECT_NE(ptx.find("mul.lo.s32"), std::string::npos) << ptx;
  EXPECT_NE(ptx.find("2146121005"), std::string::npos) << "the multiplier 0x7feb352d\n" << ptx;
}

TEST(Ptx, EveryWidthAndKindCompiles) {
  std::mt19937_64 rng(17);
  for (int width = 1; width <= 64; width += 7) {
    const std::string ptx = emit_ptx(testing::random_program(rng, width, 12), {"sm_80", "+ptx70", "k"});
    EXPECT_NE(ptx.find(".entry k"), std::string::npos);
  }
}

TEST(Ptx, RejectsInvalidPrograms) {
  EXPECT_THROW(emit_ptx(Program(8, {{StepKind::rotate, 8}})), ProgramError);
  EXPECT_THROW(emit_ptx(Program(8, {}), {"sm_nonsense", "", "k"}), JitError);
}

}  // namespace
}  // namespace mixforge::jit
