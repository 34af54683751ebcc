#include <gtest/gtest.h>

#include <map>

#include "evolver/search/mutation.hpp"

using namespace mixforge;
using namespace mixforge::evolver;

namespace {
std::vector<mixer::StepKind> all_kinds() {
  std::vector<mixer::StepKind> all;
  for (int k = 0; k < mixer::step_kind_count; ++k) all.push_back(static_cast<mixer::StepKind>(k));
  return all;
}
}  // namespace

TEST(Mutation, EveryChildValidatesAndDiffers) {
  Rng rng(11, 0);
  MutationWeights w;
  std::map<MutationKind, int> seen;
  for (int width : {1, 2, 3, 7, 8, 16, 31, 32, 33, 63, 64}) {
    for (int min_steps : {1, 3}) {
      ProgramShape shape{width, min_steps, 6, all_kinds(), {}};
      for (int i = 0; i < 400; ++i) {
        mixer::Program p = random_program(shape, rng);
        for (int g = 0; g < 10; ++g) {  // chains of mutations too
          const Mutated c = mutate(p, shape, w, rng);
          ASSERT_NO_THROW(mixer::validate(c.program)) << c.program.canonical();
          ASSERT_FALSE(c.program == p) << mutation_name(c.kind) << " " << p.canonical();
          ASSERT_EQ(c.program.width(), width);
          ASSERT_GE(static_cast<int>(c.program.size()), min_steps);
          ASSERT_LE(c.program.size(), 6u);
          const int d = static_cast<int>(c.program.size()) - static_cast<int>(p.size());
          if (c.kind == MutationKind::insert) ASSERT_EQ(d, 1);
          else if (c.kind == MutationKind::remove) ASSERT_EQ(d, -1);
          else ASSERT_EQ(d, 0);
          ++seen[c.kind];
          p = c.program;
        }
      }
    }
  }
  EXPECT_EQ(seen.size(), 5u);  // every mutation happened
}

TEST(Mutation, KindSequenceOnlyChangesConstants) {
  Rng rng(5, 0);
  const std::vector<mixer::StepKind> seq{mixer::StepKind::xorshift_right, mixer::StepKind::mul_const,
                                         mixer::StepKind::xorshift_right, mixer::StepKind::mul_const,
                                         mixer::StepKind::xorshift_right};
  ProgramShape shape{32, 1, 5, all_kinds(), seq};
  mixer::Program p = random_program(shape, rng);
  for (int i = 0; i < 2000; ++i) {
    const Mutated c = mutate(p, shape, MutationWeights{}, rng);
    ASSERT_TRUE(c.kind == MutationKind::constant_small || c.kind == MutationKind::constant_large);
    ASSERT_EQ(c.program.size(), seq.size());
    for (std::size_t k = 0; k < seq.size(); ++k) ASSERT_EQ(c.program.steps()[k].kind, seq[k]);
    ASSERT_NO_THROW(mixer::validate(c.program));
    p = c.program;
  }
}

TEST(Mutation, WeightsSteerTheChoice) {
  Rng rng(9, 0);
  ProgramShape shape{32, 1, 5, all_kinds(), {}};
  MutationWeights only_swap{0, 0, 1, 0, 0};
  mixer::Program p(32, {{mixer::StepKind::xorshift_right, 16},
                        {mixer::StepKind::mul_const, 0x7feb352d},
                        {mixer::StepKind::rotate, 3}});
  for (int i = 0; i < 200; ++i) EXPECT_EQ(mutate(p, shape, only_swap, rng).kind, MutationKind::swap);
  // No mutation can apply: a clear error instead of a loop.
  MutationWeights only_insert{0, 0, 0, 0, 1};
  ProgramShape full{32, 1, 3, all_kinds(), {}};
  EXPECT_THROW(mutate(p, full, only_insert, rng), std::invalid_argument);
}

TEST(Mutation, NudgeKeepsMultipliersOdd) {
  Rng rng(2, 0);
  for (int i = 0; i < 5000; ++i) {
    mixer::Step s{mixer::StepKind::mul_const, 0x7feb352d};
    ASSERT_TRUE(nudge(s, 32, rng));
    ASSERT_EQ(s.operand & 1, 1u);
    ASSERT_LE(s.operand, 0xffffffffu);
    mixer::Step k{mixer::StepKind::xorshift_right, 1};
    ASSERT_TRUE(nudge(k, 32, rng));
    ASSERT_GE(k.operand, 1u);
    ASSERT_LE(k.operand, 3u);
  }
  mixer::Step two{mixer::StepKind::rotate, 1};
  EXPECT_FALSE(nudge(two, 2, rng));  // 1 is the only rotation at width 2
}
