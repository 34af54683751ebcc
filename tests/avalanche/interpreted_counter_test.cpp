// The interpreter with the SIMD counting kernels (avalanche/count/interpreted_counter.hpp) gives
// the reference loops' counts, integer for integer: every width, ranges that cut a vector
// and a block, and the evaluator without an engine, which scores with it.
#include <gtest/gtest.h>

#include <random>

#include "avalanche/count/counting_kernels.hpp"
#include "avalanche/evaluator.hpp"
#include "avalanche/count/exact_counter.hpp"
#include "avalanche/count/interpreted_counter.hpp"
#include "avalanche/count/reference_counts.hpp"
#include "mixer/interpreter.hpp"
#include "mixer/text_form.hpp"
#include "support/random_program.hpp"
#include "support/same_counts.hpp"

namespace mixforge::avalanche {
namespace {

using testing::expect_same_counts;

TEST(InterpretedCounts, SampledEqualTheReferenceAtEveryWidth) {
  std::mt19937_64 rng(31);
  for (int width = 1; width <= 64; ++width) {
    SCOPED_TRACE("width " + std::to_string(width));
    const mixer::Program p = testing::random_program(rng, width, 1 + width % 6);
    // 16 lanes a vector up to 32 bits, 8 above; 32 vectors a block. 1000 + 1037 cuts both.
    for (std::uint64_t count : {0u, 1u, 15u, 17u, 513u, 1037u})
      expect_same_counts(avalanche::reference_counts_sampled(p, 77, 1000, count),
                         avalanche::interpreted_counts_sampled(p, 77, 1000, count), p);
  }
}

TEST(InterpretedCounts, ExactRangesEqualTheReference) {
  std::mt19937_64 rng(32);
  for (int width = 1; width <= 16; ++width) {
    SCOPED_TRACE("width " + std::to_string(width));
    const mixer::Program p = testing::random_program(rng, width, 4);
    expect_same_counts(avalanche::reference_counts_exact(p),
                       avalanche::interpreted_counts_exact_range(p, 0, std::uint64_t{1} << width), p);
  }
  const mixer::Program wide = testing::random_program(rng, 40, 5);
  expect_same_counts(avalanche::reference_counts_exact_range(wide, 123456789, 1001),
                     avalanche::interpreted_counts_exact_range(wide, 123456789, 1001), wide);
}

// The tiled path (every input hashed once by interpret_tile, pairs counted in tiles):
// every width up to 20 in one tile or two passes, with every step kind.
TEST(InterpretedCounts, TiledExactEqualsTheReferenceAtEveryWidth) {
  std::mt19937_64 rng(34);
  for (int width = 1; width <= 20; ++width) {
    SCOPED_TRACE("width " + std::to_string(width));
    for (int k = 0; k < 3; ++k) {
      const mixer::Program p = testing::random_program(rng, width, 1 + (width + k) % 7);
      expect_same_counts(avalanche::reference_counts_exact(p), avalanche::interpreted_counts_exact(p), p);
    }
  }
}

// interpret_tile of every instruction set this CPU runs hashes like the interpreter,
// for bases and shifts of both passes and a partial group of vectors.
TEST(InterpretedCounts, EveryInterpretTileHashesLikeTheInterpreter) {
  std::vector<const avalanche::counting::CountingKernels*> sets = {&avalanche::counting::generic_counting_kernels()};
  if (auto* k = avalanche::counting::avx2_counting_kernels()) sets.push_back(k);
  if (auto* k = avalanche::counting::avx512_counting_kernels()) sets.push_back(k);
  std::mt19937_64 rng(35);
  for (int width : {1, 5, 7, 13, 16, 17, 24, 31, 32}) {
    const mixer::Program p = testing::random_program(rng, width, 6);
    for (const avalanche::counting::CountingKernels* set : sets) {
      SCOPED_TRACE(std::string(set->name) + " width " + std::to_string(width));
      for (unsigned shift : {0u, 3u}) {
        const std::uint32_t base = static_cast<std::uint32_t>(rng()) & 7u;  // bits below shift 3
        const std::size_t vectors = 5;  // one group of four and one more
        std::vector<std::uint32_t> out(16 * vectors);
        set->interpret_tile(p.steps().data(), static_cast<int>(p.size()), width, out.data(),
                            shift ? base : 0, shift, vectors);
        for (std::size_t t = 0; t < out.size(); ++t) {
          const std::uint64_t x = ((shift ? base : 0) | (t << shift)) & p.mask();
          ASSERT_EQ(out[t], mixer::apply(p, x)) << "input " << x;
        }
      }
    }
  }
}

TEST(InterpretedCounts, TheEvaluatorWithoutAnEngineCountsLikeTheReference) {
  const avalanche::Evaluator interpreter(nullptr);
  std::mt19937_64 rng(33);
  const mixer::Program p12 = testing::random_program(rng, 12, 5);
  expect_same_counts(avalanche::reference_counts_exact(p12), interpreter.counts_exact(p12), p12);
  const mixer::Program p48 = testing::random_program(rng, 48, 5);
  expect_same_counts(avalanche::reference_counts_sampled(p48, 5, 0, 4096), interpreter.counts_sampled(p48, 5, 0, 4096),
                     p48);
  const mixer::Program p32 =
      mixer::parse_program("x ^= x >> 16; x *= 0x7feb352d; x ^= x >> 15; x *= 0x846ca68b; x ^= x >> 16;");
  expect_same_counts(avalanche::reference_counts_sampled(p32, 9, 3, 2000), interpreter.counts_sampled(p32, 9, 3, 2000),
                     p32);
}

}  // namespace
}  // namespace mixforge::avalanche
