// The JIT kernels against the reference interpreter, bit for bit.
#include <gtest/gtest.h>

#include <random>

#include "jit/engine.hpp"
#include "mixer/interpreter.hpp"
#include "support/random_program.hpp"

namespace mixforge::jit {
namespace {

using testing::random_program;

Engine& engine() {
  static Engine e;
  return e;
}

std::vector<std::uint64_t> test_inputs(std::mt19937_64& rng, int width, std::size_t random_count) {
  const std::uint64_t m = mixer::width_mask(width);
  std::vector<std::uint64_t> in{0, m, ~std::uint64_t{0}, m >> 1, (m >> 1) + 1};
  for (int k = 0; k < 64; ++k) {
    in.push_back(std::uint64_t{1} << k);  // high bits beyond the width must be ignored
    in.push_back(m ^ (std::uint64_t{1} << k));
  }
  for (std::size_t k = 0; k < random_count; ++k) in.push_back(rng());
  return in;  // 133 + random_count: odd, so the scalar tail runs too
}

// The diffs kernel of p on `vectors` vectors of random inputs (0 and the mask among them)
// gives the interpreter's f(x) ^ f(x ^ 1 << i) for every lane and input bit.
void expect_diffs_of_interpreter(const mixer::Program& p, const Kernel& k, std::size_t vectors, std::mt19937_64& rng) {
  const int width = p.width();
  const int lanes = k.lanes();
  std::vector<std::uint64_t> x(vectors * lanes);
  for (auto& v : x) v = rng() & p.mask();
  x[0] = 0;
  x[1] = p.mask();
  std::vector<std::uint32_t> in32(x.begin(), x.end());
  std::vector<std::uint64_t> out64(vectors * width * lanes);
  std::vector<std::uint32_t> out32(vectors * width * lanes);
  if (width <= 32)
    k.diffs(in32.data(), out32.data(), vectors);
  else
    k.diffs(x.data(), out64.data(), vectors);
  for (std::size_t v = 0; v < vectors; ++v)
    for (int l = 0; l < lanes; ++l) {
      const std::uint64_t xv = x[v * lanes + l];
      for (int i = 0; i < width; ++i) {
        const std::uint64_t want = mixer::apply(p, xv) ^ mixer::apply(p, xv ^ (std::uint64_t{1} << i));
        const std::size_t at = (v * width + i) * lanes + l;
        const std::uint64_t got = width <= 32 ? out32[at] : out64[at];
        ASSERT_EQ(got, want) << p.canonical() << " v " << v << " lane " << l << " bit " << i;
      }
    }
}

TEST(KernelApply, MatchesInterpreterForEveryWidthAndKind) {
  std::mt19937_64 rng(12345);
  for (int width = 1; width <= 64; ++width) {
    const int level = width % 4;  // every codegen level sees every kind of width
    // One batch (module) per width keeps the test quick.
    std::vector<mixer::Program> programs;
    for (int trial = 0; trial < 6; ++trial)
      programs.push_back(random_program(rng, width, 1 + static_cast<int>(rng() % 12)));
    auto kernels = engine().compile_batch(programs, parts_apply, level);
    for (int trial = 0; trial < 6; ++trial) {
      const mixer::Program& p = programs[trial];
      auto& k = kernels[trial];
      auto in = test_inputs(rng, width, 300);
      std::vector<std::uint64_t> out(in.size());
      k->apply(in.data(), out.data(), in.size());
      for (std::size_t i = 0; i < in.size(); ++i)
        ASSERT_EQ(out[i], mixer::apply(p, in[i])) << p.canonical() << " input " << in[i];
    }
  }
}

TEST(KernelApply, EachKindAloneAtEveryWidth) {
  std::mt19937_64 rng(777);
  for (int width = 1; width <= 64; ++width) {
    std::vector<mixer::Program> programs;
    for (int kind = 0; kind < mixer::step_kind_count; ++kind) {
      const auto sk = static_cast<mixer::StepKind>(kind);
      if (width == 1 && mixer::takes_shift(sk)) continue;
      // The kind twice: the second one sees what the first leaves above the width.
      programs.emplace_back(width, std::vector<mixer::Step>{testing::random_step(rng, width, sk),
                                                            testing::random_step(rng, width, sk)});
    }
    auto kernels = engine().compile_batch(programs, parts_apply);
    for (std::size_t j = 0; j < programs.size(); ++j) {
      const mixer::Program& p = programs[j];
      auto& k = kernels[j];
      auto in = test_inputs(rng, width, 40);
      std::vector<std::uint64_t> out(in.size());
      k->apply(in.data(), out.data(), in.size());
      for (std::size_t i = 0; i < in.size(); ++i)
        ASSERT_EQ(out[i], mixer::apply(p, in[i])) << p.canonical() << " input " << in[i];
    }
  }
}

TEST(KernelApply, InPlaceAndEmpty) {
  mixer::Program p(32, {{mixer::StepKind::xorshift_right, 16}, {mixer::StepKind::mul_const, 0x7feb352d}});
  auto k = engine().compile(p);
  std::vector<std::uint64_t> v{1, 2, 3, 4, 5, 6, 7, 8, 9};
  auto expect = v;
  for (auto& x : expect) x = mixer::apply(p, x);
  k->apply(v.data(), v.data(), v.size());
  EXPECT_EQ(v, expect);
  k->apply(nullptr, nullptr, 0);  // no access at all
}

TEST(KernelTile, MatchesInterpreter) {
  std::mt19937_64 rng(99);
  for (int width = 1; width <= 32; ++width) {
    mixer::Program p = random_program(rng, width, 6);
    auto k = engine().compile(p);
    const unsigned shift = width > 8 ? static_cast<unsigned>(rng() % (width - 7)) : 0;
    const std::uint32_t base = static_cast<std::uint32_t>(rng()) & static_cast<std::uint32_t>(p.mask());
    std::vector<std::uint32_t> out(16 * 8);
    k->hash_tile(out.data(), base, shift, 8);
    for (std::uint64_t t = 0; t < out.size(); ++t) {
      const std::uint64_t x = (base | (t << shift)) & p.mask();
      ASSERT_EQ(out[t], mixer::apply(p, x)) << p.canonical() << " t " << t;
    }
  }
  mixer::Program wide(40, {{mixer::StepKind::mul_const, 3}});
  std::uint32_t dummy[16];
  EXPECT_THROW(engine().compile(wide)->hash_tile(dummy, 0, 0, 1), std::invalid_argument);
}

TEST(KernelDiffs, MatchesInterpreter) {
  std::mt19937_64 rng(4242);
  for (int width = 1; width <= 64; ++width) {
    mixer::Program p = random_program(rng, width, 5);
    expect_diffs_of_interpreter(p, *engine().compile(p), 3, rng);
  }
}

// The diffs kernel hashes a program's leading XOR-affine steps (xor_const, xorshifts,
// rotate) once per input and starts the partners after them (jit/mix_ir.cpp): programs
// that begin with 1..4 of them, or consist of them only, give the interpreter's
// differences at every width.
TEST(KernelDiffs, LeadingAffineStepsGiveTheSameDifferences) {
  using mixer::StepKind;
  const StepKind affine[] = {StepKind::xor_const, StepKind::xorshift_right, StepKind::xorshift_left, StepKind::rotate};
  std::mt19937_64 rng(5252);
  for (int width = 1; width <= 64; ++width)
    for (int lead = 1; lead <= 4; ++lead)
      for (const bool all_affine : {false, true}) {
        std::vector<mixer::Step> steps;
        for (int s = 0; s < lead; ++s) {
          StepKind kind = affine[rng() % 4];
          if (width == 1) kind = StepKind::xor_const;  // no shift amount fits
          steps.push_back(testing::random_step(rng, width, kind));
        }
        if (!all_affine) {
          const mixer::Program tail = random_program(rng, width, 3);
          steps.push_back(testing::random_step(rng, width, StepKind::mul_const));
          steps.insert(steps.end(), tail.steps().begin(), tail.steps().end());
        }
        const mixer::Program p(width, steps);
        expect_diffs_of_interpreter(p, *engine().compile(p, parts_diffs), 2, rng);
      }
}

}  // namespace
}  // namespace mixforge::jit
