// The JIT counting paths (exact tiles, sampled diffs, both SIMD kernel builds) against
// the reference interpreter, integer for integer.
#include <gtest/gtest.h>

#include <cstring>
#include <new>
#include <random>

#include "avalanche/count/counting_kernels.hpp"
#include "avalanche/count/exact_counter.hpp"
#include "avalanche/count/jit_counts.hpp"
#include "avalanche/count/reference_counts.hpp"
#include "avalanche/count/sampled_counter.hpp"
#include "jit/engine.hpp"
#include "support/random_program.hpp"
#include "support/same_counts.hpp"

namespace mixforge::avalanche {
namespace {

using testing::random_program;

jit::Engine& engine() {
  static jit::Engine e;
  return e;
}

TEST(JitSampledCounts, MatchReferenceAtEveryWidth) {
  std::mt19937_64 rng(2024);
  for (int width = 1; width <= 64; ++width) {
    const mixer::Program p = random_program(rng, width, 1 + static_cast<int>(rng() % 8));
    const std::uint64_t seed = rng();
    // Counts that leave partial vectors and partial Harley-Seal groups.
    for (std::uint64_t count : {std::uint64_t{1}, std::uint64_t{17}, static_cast<std::uint64_t>(2000 + width)}) {
      const std::uint64_t first = rng() % 5000;
      SCOPED_TRACE("count " + std::to_string(count));
      testing::expect_same_counts(avalanche::jit_counts_sampled(engine(), p, seed, first, count),
                                  avalanche::reference_counts_sampled(p, seed, first, count), p);
    }
  }
}

TEST(JitSampledCounts, RangesAddUp) {
  const mixer::Program p(32, {{mixer::StepKind::xorshift_right, 16},
                              {mixer::StepKind::mul_const, 0x7feb352d},
                              {mixer::StepKind::xorshift_right, 15}});
  avalanche::AvalancheCounts parts = avalanche::jit_counts_sampled(engine(), p, 7, 0, 1000);
  parts += avalanche::jit_counts_sampled(engine(), p, 7, 1000, 3096);
  testing::expect_same_counts(parts, avalanche::jit_counts_sampled(engine(), p, 7, 0, 4096), p);
  EXPECT_EQ(avalanche::jit_counts_sampled(engine(), p, 7, 0, 0).trials, 0u);
}

TEST(JitPrepare, BatchCompiledKernelsServeLaterCounts) {
  jit::Engine local;
  std::mt19937_64 rng(77);
  std::vector<mixer::Program> programs;
  for (int i = 0; i < 8; ++i) programs.push_back(random_program(rng, 16, 5));
  auto kernels = avalanche::jit_prepare_sampled(local, programs, 500);
  EXPECT_EQ(local.stats().modules, 1u);
  for (const mixer::Program& p : programs)
    testing::expect_same_counts(avalanche::jit_counts_sampled(local, p, 3, 0, 500),
                                avalanche::reference_counts_sampled(p, 3, 0, 500), p);
  EXPECT_EQ(local.stats().modules, 1u);  // all served from the batch
  EXPECT_EQ(local.stats().cache_hits, programs.size());
  auto exact = avalanche::jit_prepare_exact(local, programs);
  EXPECT_EQ(local.stats().modules, 2u);
  testing::expect_same_counts(avalanche::jit_counts_exact(local, programs[0]),
                              avalanche::reference_counts_exact(programs[0]), programs[0]);
  EXPECT_EQ(local.stats().modules, 2u);
}

TEST(JitSampledCounts, QuickCodeForSmallCountsOptimisedForLarge) {
  jit::Engine local;
  EXPECT_EQ(avalanche::sampled_codegen_level(local, 4096), 0);
  EXPECT_EQ(avalanche::sampled_codegen_level(local, std::uint64_t{1} << 20), 1);
  const mixer::Program p(32, {{mixer::StepKind::xorshift_right, 16}, {mixer::StepKind::mul_const, 0x7feb352d}});
  // The same counts whichever code computes them.
  const avalanche::AvalancheCounts big = avalanche::jit_counts_sampled(local, p, 5, 0, std::uint64_t{1} << 20);
  avalanche::AvalancheCounts parts = avalanche::jit_counts_sampled(local, p, 5, 0, 1000);
  parts += avalanche::jit_counts_sampled(local, p, 5, 1000, (std::uint64_t{1} << 20) - 1000);
  testing::expect_same_counts(parts, big, p);
}

TEST(JitExactCounts, MatchReferenceForWidths1To16) {
  std::mt19937_64 rng(31337);
  for (int width = 1; width <= 16; ++width)
    for (int trial = 0; trial < 3; ++trial) {
      const mixer::Program p = random_program(rng, width, 1 + static_cast<int>(rng() % 8));
      testing::expect_same_counts(avalanche::jit_counts_exact(engine(), p), avalanche::reference_counts_exact(p), p);
    }
}

TEST(JitExactCounts, MatchReferenceAcrossTwoPasses) {
  // Widths above the 16-bit tile take a second pass over the high bits.
  std::mt19937_64 rng(5);
  for (int width : {17, 19}) {
    const mixer::Program p = random_program(rng, width, 6);
    testing::expect_same_counts(avalanche::jit_counts_exact(engine(), p), avalanche::reference_counts_exact(p), p);
  }
}

TEST(JitExactCounts, RejectsWideProgramsClearly) {
  const mixer::Program p(33, {{mixer::StepKind::mul_const, 5}});
  EXPECT_THROW(avalanche::jit_counts_exact(engine(), p), std::invalid_argument);
}

// The SIMD builds of the counting kernels against the baseline build, on every local
// direction of a random tile and on sample generation.
void expect_same_as_generic(const avalanche::counting::CountingKernels& fast) {
  const avalanche::counting::CountingKernels& slow = avalanche::counting::generic_counting_kernels();
  std::mt19937_64 rng(11);
  // A random tile of 2^12 words, every local direction.
  std::vector<avalanche::counting::Plane> tile(256);
  for (auto& pl : tile)
    for (auto& w : pl.w) w = rng();
  const int dirs[12] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
  std::vector<avalanche::counting::SlicedCounter> a(12), b(12);
  for (int round = 0; round < 40; ++round) {  // enough rounds to reach the higher levels
    fast.count_tile(reinterpret_cast<const std::uint32_t*>(tile.data()), 12, dirs, 12, a.data());
    slow.count_tile(reinterpret_cast<const std::uint32_t*>(tile.data()), 12, dirs, 12, b.data());
  }
  for (int d = 0; d < 12; ++d) {
    std::uint64_t ta[512] = {}, tb[512] = {};
    avalanche::counting::add_totals(a[d], ta);
    avalanche::counting::add_totals(b[d], tb);
    for (int p = 0; p < 512; ++p) ASSERT_EQ(ta[p], tb[p]) << "direction " << d << " position " << p;
  }
  // count_diffs, with a count that is not a multiple of 16.
  std::vector<avalanche::counting::Plane> rows(3 * 1001);
  for (auto& pl : rows)
    for (auto& w : pl.w) w = rng();
  std::vector<avalanche::counting::SlicedCounter> ca(3), cb(3);
  fast.count_diffs(rows.data(), 3, 1001, ca.data());
  slow.count_diffs(rows.data(), 3, 1001, cb.data());
  for (int i = 0; i < 3; ++i) {
    std::uint64_t ta[512] = {}, tb[512] = {};
    avalanche::counting::add_totals(ca[i], ta);
    avalanche::counting::add_totals(cb[i], tb);
    for (int p = 0; p < 512; ++p) ASSERT_EQ(ta[p], tb[p]) << "plane " << i << " position " << p;
  }
  // Sample generation, both word sizes.
  std::vector<std::uint64_t> sa(37), sb(37);
  fast.sample_inputs(99, 12345, 37, 0xffffffffffull, 64, sa.data());
  slow.sample_inputs(99, 12345, 37, 0xffffffffffull, 64, sb.data());
  EXPECT_EQ(sa, sb);
  std::vector<std::uint32_t> wa(37), wb(37);
  fast.sample_inputs(7, 3, 37, 0xffffffffull, 32, wa.data());
  slow.sample_inputs(7, 3, 37, 0xffffffffull, 32, wb.data());
  EXPECT_EQ(wa, wb);
}

TEST(CountingKernels, GenericAndAvx2Agree) {
  const avalanche::counting::CountingKernels* fast = avalanche::counting::avx2_counting_kernels();
  if (!fast) GTEST_SKIP() << "no AVX2 on this CPU (or not an x86-64 build)";
  expect_same_as_generic(*fast);
}

TEST(CountingKernels, GenericAndAvx512Agree) {
  const avalanche::counting::CountingKernels* fast = avalanche::counting::avx512_counting_kernels();
  if (!fast) GTEST_SKIP() << "no AVX-512 on this CPU (or not an x86-64 build)";
  expect_same_as_generic(*fast);
}

TEST(SlicedCounter, CountsEveryPositionExactly) {
  // Plane q sets position p when (p * 7 + q) % 5 == 0: the expected totals are easy.
  const avalanche::counting::CountingKernels& k = avalanche::counting::best_counting_kernels();
  const int planes = 1000;
  std::vector<avalanche::counting::Plane> rows(planes);
  for (int q = 0; q < planes; ++q)
    for (int p = 0; p < 512; ++p)
      if ((p * 7 + q) % 5 == 0) rows[q].w[p / 64] |= std::uint64_t{1} << (p % 64);
  avalanche::counting::SlicedCounter c;
  k.count_diffs(rows.data(), 1, planes, &c);
  std::uint64_t totals[512] = {};
  avalanche::counting::add_totals(c, totals);
  for (int p = 0; p < 512; ++p) {
    std::uint64_t want = 0;
    for (int q = 0; q < planes; ++q) want += (p * 7 + q) % 5 == 0;
    ASSERT_EQ(totals[p], want) << "position " << p;
  }
}

TEST(SlicedCounter, LevelsStartAtZeroWhateverTheMemoryHeld) {
  // SlicedCounter leaves its levels unset until they come into use: build one over memory
  // full of garbage and count a known stream through many levels.
  const avalanche::counting::CountingKernels& k = avalanche::counting::best_counting_kernels();
  alignas(avalanche::counting::SlicedCounter) unsigned char buffer[sizeof(avalanche::counting::SlicedCounter)];
  std::memset(buffer, 0xab, sizeof buffer);
  auto* c = new (buffer) avalanche::counting::SlicedCounter;
  const int planes = 5000;
  std::vector<avalanche::counting::Plane> rows(planes);
  for (auto& r : rows) std::fill(std::begin(r.w), std::end(r.w), ~std::uint64_t{0});
  k.count_diffs(rows.data(), 1, planes, c);
  std::uint64_t totals[512] = {};
  avalanche::counting::add_totals(*c, totals);
  for (int p = 0; p < 512; ++p) ASSERT_EQ(totals[p], planes) << "position " << p;
  c->~SlicedCounter();
}

// Every build's fold_bits against the reference loop (add_totals, then position p into
// output bit p % word_bits), on counters with every level, pending planes and random bits.
TEST(CountingKernels, FoldBitsIsTheReferenceTotalsByOutputBit) {
  std::vector<const avalanche::counting::CountingKernels*> builds = {&avalanche::counting::generic_counting_kernels()};
  if (const auto* k = avalanche::counting::avx2_counting_kernels()) builds.push_back(k);
  if (const auto* k = avalanche::counting::avx512_counting_kernels()) builds.push_back(k);
  std::mt19937_64 rng(17);
  for (int trial = 0; trial < 20; ++trial) {
    avalanche::counting::SlicedCounter c;
    c.top = static_cast<int>(rng() % (avalanche::counting::sliced_levels + 1));
    c.has_pending = c.top == 0 ? 0 : rng() & ((std::uint64_t{1} << c.top) - 1);
    for (auto& pl : c.low)
      for (auto& w : pl.w) w = rng();
    for (int l = 0; l < c.top; ++l)
      for (int w = 0; w < 8; ++w) {
        c.level[l].w[w] = rng();
        c.pending[l].w[w] = rng();
      }
    std::uint64_t totals[512] = {};
    avalanche::counting::add_totals(c, totals);
    for (const int word_bits : {32, 64}) {
      std::uint64_t want[64] = {};
      for (int p = 0; p < 512; ++p) want[p % word_bits] += totals[p];
      for (const auto* k : builds) {
        std::uint64_t got[64] = {};
        got[0] = 5;  // fold_bits adds to what is there
        k->fold_bits(c, word_bits, got);
        got[0] -= 5;
        for (int j = 0; j < 64; ++j)
          ASSERT_EQ(got[j], j < word_bits ? want[j] : 0)
              << k->name << ", word_bits " << word_bits << ", bit " << j << ", trial " << trial;
      }
    }
  }
}

// lowbias32's exact chi2 through the JIT is checked by
// ReferenceScores.JitExactLowbias32MatchesReference (reference_scores_test.cpp); every
// 32-bit reference function by JitExactCountsLong (jit_counting_longtest.cpp, "long").

}  // namespace
}  // namespace mixforge::avalanche
