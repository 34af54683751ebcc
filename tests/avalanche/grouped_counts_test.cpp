// Sampled scores take their standard error from groups of disjoint samples
// (avalanche/count/grouped_counts.hpp): checked against the spread of scores over many seeds,
// around the exact score computed by the reference loops, for a poor and a good program.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <vector>

#include "avalanche/evaluator.hpp"
#include "avalanche/count/grouped_counts.hpp"
#include "avalanche/count/reference_counts.hpp"
#include "mixer/text_form.hpp"

namespace mixforge::avalanche {
namespace {

struct Spread {
  double sd_over_stderr;  // spread of chi2_corrected / mean reported stderr
  double mean_error;      // mean(corrected) - exact, in stderr units of the mean
};

Spread spread(const mixer::Program& p, std::uint64_t samples, int seeds) {
  const avalanche::Evaluator ev(nullptr);
  const double exact = avalanche::score(avalanche::reference_counts_exact(p)).chi2;
  std::vector<double> corrected, stderrs;
  for (int seed = 1; seed <= seeds; ++seed) {
    const avalanche::Score s = ev.sampled(p, samples, static_cast<std::uint64_t>(seed));
    corrected.push_back(s.chi2_corrected);
    stderrs.push_back(s.chi2_stderr);
  }
  const double mean = std::accumulate(corrected.begin(), corrected.end(), 0.0) / seeds;
  double var = 0;
  for (double c : corrected) var += (c - mean) * (c - mean);
  const double sd = std::sqrt(var / (seeds - 1));
  const double se = std::accumulate(stderrs.begin(), stderrs.end(), 0.0) / seeds;
  return {sd / se, (mean - exact) / (se / std::sqrt(double(seeds)))};
}

// The cell-by-cell formula gave 4.2 (poor) and 1.1 (good) here at width 20; the groups
// must describe both. 60 seeds: the ratio itself is known to about +-10 %.
TEST(GroupedCounts, TheStandardErrorDescribesTheSpreadFromPoorToGood) {
  const mixer::ParseOptions w12{12};
  const mixer::Program poor = mixer::parse_program("x *= 0x781; x ^= x >> 5;", w12);
  const mixer::Program good =
      mixer::parse_program("x ^= x >> 6; x *= 0x5a5; x ^= x >> 5; x *= 0x3c3; x ^= x >> 6;", w12);
  for (const mixer::Program* p : {&poor, &good}) {
    SCOPED_TRACE(mixer::format_program(*p));
    const Spread s = spread(*p, 1 << 14, 60);
    EXPECT_GT(s.sd_over_stderr, 0.75);
    EXPECT_LT(s.sd_over_stderr, 1.3);
    EXPECT_LT(std::abs(s.mean_error), 4.0);  // chi2_corrected stays unbiased
  }
}

TEST(GroupedCounts, ChunksCoverTheRangeInOrder) {
  std::uint64_t at = 1000;
  for (int g = 0; g < 32; ++g) {
    EXPECT_EQ(avalanche::group_chunk_start(1000, 1037, 32, g), at);
    at = avalanche::group_chunk_start(1000, 1037, 32, g + 1);
  }
  EXPECT_EQ(at, 2037u);
  EXPECT_EQ(avalanche::group_chunk_start(0, std::uint64_t{1} << 58, 64, 63), (std::uint64_t{1} << 58) / 64 * 63);
}

// Early reject's stages: 2^10 samples make 4 chunks of 256 (not 32 of 32, whose fixed cost
// per counting call made sampled runs several times slower); the next stages fill the
// following groups in turn, and a large extension spreads over all 32.
TEST(GroupedCounts, SmallExtensionsFillTheGroupsInTurn) {
  const mixer::Program p = mixer::parse_program("x ^= x >> 5; x *= 0x5a5; x ^= x >> 6;", mixer::ParseOptions{12});
  const avalanche::Evaluator ev(nullptr);
  avalanche::GroupedCounts acc(12);
  auto used = [&] {
    int n = 0;
    for (int g = 0; g < acc.groups(); ++g) n += acc.group(g).trials > 0;
    return n;
  };
  ev.extend_sampled(acc, p, 3, 1024);
  EXPECT_EQ(used(), 4);
  EXPECT_EQ(acc.group(0).trials, 256u);
  ev.extend_sampled(acc, p, 3, 3072);
  EXPECT_EQ(used(), 16);
  ev.extend_sampled(acc, p, 3, 12288);
  EXPECT_EQ(used(), 32);
  ev.extend_sampled(acc, p, 3, 1 << 16);
  for (int g = 0; g < acc.groups(); ++g) EXPECT_GE(acc.group(g).trials, 2048u) << "group " << g;
  EXPECT_EQ(acc.trials(), 1024u + 3072 + 12288 + 65536);
}

TEST(GroupedCounts, PooledCountsAreTheWholeStreamsCounts) {
  const mixer::Program p = mixer::parse_program("x ^= x >> 5; x *= 0x5a5; x ^= x >> 6;", mixer::ParseOptions{12});
  const avalanche::Evaluator ev(nullptr);
  avalanche::GroupedCounts acc(12);
  ev.extend_sampled(acc, p, 9, 1000);
  ev.extend_sampled(acc, p, 9, 3000);  // a second stage continues the stream
  const avalanche::AvalancheCounts whole = avalanche::reference_counts_sampled(p, 9, 0, 4000);
  EXPECT_EQ(acc.pooled().flips, whole.flips);
  EXPECT_EQ(acc.trials(), 4000u);
  EXPECT_EQ(acc.score().chi2, avalanche::score(whole).chi2);
  EXPECT_THROW(acc.add(0, avalanche::AvalancheCounts::zero(12, true)), std::invalid_argument);
  EXPECT_THROW(acc.add(0, avalanche::AvalancheCounts::zero(13, false)), std::invalid_argument);
}

}  // namespace
}  // namespace mixforge::avalanche
