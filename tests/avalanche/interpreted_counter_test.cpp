// The interpreter with the SIMD counting kernels (avalanche/interpreted_counter.hpp) gives
// the reference loops' counts, integer for integer: every width, ranges that cut a vector
// and a block, and the evaluator without an engine, which scores with it.
#include <gtest/gtest.h>

#include <random>

#include "avalanche/evaluator.hpp"
#include "avalanche/interpreted_counter.hpp"
#include "avalanche/reference_counts.hpp"
#include "mixer/text_form.hpp"
#include "support/random_program.hpp"
#include "support/same_counts.hpp"

namespace mixforge {
namespace {

using testing::expect_same_counts;

TEST(InterpretedCounts, SampledEqualTheReferenceAtEveryWidth) {
  std::mt19937_64 rng(31);
  for (int width = 1; width <= 64; ++width) {
    SCOPED_TRACE("width " + std::to_string(width));
    const Program p = testing::random_program(rng, width, 1 + width % 6);
    // 16 lanes a vector up to 32 bits, 8 above; 32 vectors a block. 1000 + 1037 cuts both.
    for (std::uint64_t count : {0u, 1u, 15u, 17u, 513u, 1037u})
      expect_same_counts(reference_counts_sampled(p, 77, 1000, count), interpreted_counts_sampled(p, 77, 1000, count), p);
  }
}

TEST(InterpretedCounts, ExactRangesEqualTheReference) {
  std::mt19937_64 rng(32);
  for (int width = 1; width <= 16; ++width) {
    SCOPED_TRACE("width " + std::to_string(width));
    const Program p = testing::random_program(rng, width, 4);
    expect_same_counts(reference_counts_exact(p), interpreted_counts_exact_range(p, 0, std::uint64_t{1} << width), p);
  }
  const Program wide = testing::random_program(rng, 40, 5);
  expect_same_counts(reference_counts_exact_range(wide, 123456789, 1001),
              interpreted_counts_exact_range(wide, 123456789, 1001), wide);
}

TEST(InterpretedCounts, TheEvaluatorWithoutAnEngineCountsLikeTheReference) {
  const Evaluator interpreter(nullptr);
  std::mt19937_64 rng(33);
  const Program p12 = testing::random_program(rng, 12, 5);
  expect_same_counts(reference_counts_exact(p12), interpreter.counts_exact(p12), p12);
  const Program p48 = testing::random_program(rng, 48, 5);
  expect_same_counts(reference_counts_sampled(p48, 5, 0, 4096), interpreter.counts_sampled(p48, 5, 0, 4096), p48);
  const Program p32 = parse_program("x ^= x >> 16; x *= 0x7feb352d; x ^= x >> 15; x *= 0x846ca68b; x ^= x >> 16;");
  expect_same_counts(reference_counts_sampled(p32, 9, 3, 2000), interpreter.counts_sampled(p32, 9, 3, 2000), p32);
}

}  // namespace
}  // namespace mixforge
