// Sampler properties: every mixforge-cmj set is a correlated multi-jittered set for any N
// (one sample per cell of its m x n grid, one per fine row and per fine column stratum);
// Morton order of the cells; Owen-Sobol nets; ranges and determinism of every sampler.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "baker/sampling/default_mixer4.hpp"
#include "baker/sampling/jit_mixer4.hpp"
#include "baker/sampling/morton.hpp"
#include "baker/sampling/sampler.hpp"
#include "jit/engine.hpp"
#include "mixer/text_form.hpp"

using namespace mixforge;
using namespace mixforge::baker;

namespace {

// Sample b of the texel's set of `pattern`, drawn at the index the integrator draws it at.
std::vector<Vec2> points(const Sampler& s, std::uint32_t x, std::uint32_t y, std::uint32_t pass = 0,
                         std::uint32_t pattern = hemisphere_pattern) {
  std::vector<SamplerState> st{s.start(x, y, pass, pattern)};
  std::vector<Vec2> out(s.count());
  for (std::uint32_t i = 0; i < s.count(); ++i) s.generate(st, s.pattern_index(i, pattern), {&out[i], 1});
  return out;
}

// One sample per coarse cell and per fine stratum on both axes.
void expect_cmj(const std::vector<Vec2>& p, std::uint32_t n_samples) {
  const CmjGrid g = cmj_grid(n_samples);
  ASSERT_EQ(g.m * g.n, n_samples);
  std::set<std::uint32_t> cells, fx, fy;
  for (const Vec2& v : p) {
    ASSERT_GE(v.x, 0.0f);
    ASSERT_LT(v.x, 1.0f);
    ASSERT_GE(v.y, 0.0f);
    ASSERT_LT(v.y, 1.0f);
    const auto i = static_cast<std::uint32_t>(v.x * g.m), j = static_cast<std::uint32_t>(v.y * g.n);
    cells.insert(j * g.m + i);
    fx.insert(static_cast<std::uint32_t>(double(v.x) * n_samples));
    fy.insert(static_cast<std::uint32_t>(double(v.y) * n_samples));
  }
  EXPECT_EQ(cells.size(), n_samples);
  EXPECT_EQ(fx.size(), n_samples) << "column strata, N = " << n_samples;
  EXPECT_EQ(fy.size(), n_samples) << "row strata, N = " << n_samples;
}

}  // namespace

TEST(CmjGrid, FactorsExactly) {
  EXPECT_EQ(cmj_grid(256).m, 16u);
  EXPECT_EQ(cmj_grid(256).n, 16u);
  EXPECT_EQ(cmj_grid(12).m, 3u);
  EXPECT_EQ(cmj_grid(12).n, 4u);
  EXPECT_EQ(cmj_grid(13).m, 1u);
  EXPECT_EQ(cmj_grid(13).n, 13u);
  EXPECT_EQ(cmj_grid(1).m * cmj_grid(1).n, 1u);
}

TEST(MixforgeCmj, EverySetIsCmjForAnyCount) {
  const auto mixers = default_mixer4();
  std::vector<std::uint32_t> counts;
  for (std::uint32_t n = 1; n <= 80; ++n) counts.push_back(n);
  for (std::uint32_t n : {96u, 97u, 100u, 128u, 255u, 256u, 1000u, 1024u}) counts.push_back(n);
  for (std::uint32_t n : counts) {
    const auto s = make_sampler(SamplerKind::mixforge_cmj, n, 7, mixers);
    for (std::uint32_t texel = 0; texel < 6; ++texel) {
      SCOPED_TRACE("N = " + std::to_string(n) + ", texel " + std::to_string(texel));
      expect_cmj(points(*s, texel * 37, texel * 11, texel % 3), n);
    }
  }
}

TEST(MixforgeCmj, JitMixersGiveCmjSetsAndTheSamePointsAsCompiledCode) {
  // The same programs through the JIT: identical points (the compiled-in export and the
  // JIT agree bit for bit).
  const auto compiled = default_mixer4();
  const auto jitted = make_jit_mixer4(compiled->lanes(), std::make_shared<jit::Engine>());
  for (std::uint32_t n : {16u, 30u, 64u}) {
    const auto a = make_sampler(SamplerKind::mixforge_cmj, n, 3, compiled);
    const auto b = make_sampler(SamplerKind::mixforge_cmj, n, 3, jitted);
    const auto pa = points(*a, 5, 9), pb = points(*b, 5, 9);
    expect_cmj(pb, n);
    for (std::uint32_t i = 0; i < n; ++i) {
      EXPECT_EQ(pa[i].x, pb[i].x);
      EXPECT_EQ(pa[i].y, pb[i].y);
    }
  }
}

TEST(MixforgeCmj, SamplesFollowTheCellsInMortonOrder) {
  const auto s = make_sampler(SamplerKind::mixforge_cmj, 64, 1, default_mixer4());
  const auto p = points(*s, 1, 2);
  for (std::uint32_t i = 0; i < 64; ++i) {
    const auto cx = static_cast<std::uint32_t>(p[i].x * 8), cy = static_cast<std::uint32_t>(p[i].y * 8);
    EXPECT_EQ(morton2(cx, cy), i) << "sample " << i;
  }
}

TEST(MixforgeCmj, TexelsAndPassesGetDifferentSets) {
  const auto s = make_sampler(SamplerKind::mixforge_cmj, 64, 1, default_mixer4());
  const auto a = points(*s, 1, 2), b = points(*s, 2, 1), c = points(*s, 1, 2, 1);
  int same_ab = 0, same_ac = 0;
  for (int i = 0; i < 64; ++i) {
    same_ab += a[i].x == b[i].x;
    same_ac += a[i].x == c[i].x;
  }
  EXPECT_LT(same_ab, 4);
  EXPECT_LT(same_ac, 4);
}

// The light pattern (next-event estimation) is another scramble of the same kind of set:
// still CMJ, deterministic, other points than the hemisphere pattern's, and its batch b is
// not in the stratum the hemisphere pattern's batch b is in (mixforge-cmj orders by stratum).
TEST(MixforgeCmj, TheLightPatternIsAnotherCmjSetWithItsOwnStratumOrder) {
  const auto mixers = default_mixer4();
  for (std::uint32_t n : {1u, 7u, 16u, 64u, 100u}) {
    SCOPED_TRACE("N = " + std::to_string(n));
    const auto s = make_sampler(SamplerKind::mixforge_cmj, n, 7, mixers);
    std::set<std::uint32_t> indices;
    for (std::uint32_t b = 0; b < n; ++b) indices.insert(s->pattern_index(b, light_pattern));
    EXPECT_EQ(indices.size(), n) << "pattern_index is a permutation";
    EXPECT_LT(*indices.rbegin(), n);
    EXPECT_EQ(s->pattern_index(n - 1, hemisphere_pattern), n - 1);
    const auto h = points(*s, 3, 5, 0, hemisphere_pattern);
    const auto l = points(*s, 3, 5, 0, light_pattern), again = points(*s, 3, 5, 0, light_pattern);
    expect_cmj(l, n);
    if (n < 16) continue;
    const CmjGrid g = cmj_grid(n);
    int same_point = 0, same_stratum = 0;
    for (std::uint32_t b = 0; b < n; ++b) {
      EXPECT_EQ(l[b].x, again[b].x);
      EXPECT_EQ(l[b].y, again[b].y);
      same_point += l[b].x == h[b].x;
      same_stratum += static_cast<int>(l[b].x * g.m) == static_cast<int>(h[b].x * g.m) &&
                      static_cast<int>(l[b].y * g.n) == static_cast<int>(h[b].y * g.n);
    }
    EXPECT_EQ(same_point, 0);
    EXPECT_LT(same_stratum, static_cast<int>(n / 4)) << "strata of batch b are paired at random";
  }
}

TEST(Samplers, PatternsAreIndependentScramblesForEverySampler) {
  const auto mixers = default_mixer4();
  for (SamplerKind k : all_sampler_kinds) {
    SCOPED_TRACE(std::string(sampler_name(k)));
    const auto s = make_sampler(k, 64, 42, mixers);
    const auto h = points(*s, 3, 4, 0, hemisphere_pattern);
    const auto l = points(*s, 3, 4, 0, light_pattern), again = points(*s, 3, 4, 0, light_pattern);
    int same = 0;
    for (std::size_t i = 0; i < h.size(); ++i) {
      ASSERT_GE(l[i].x, 0.0f);
      ASSERT_LT(l[i].x, 1.0f);
      ASSERT_GE(l[i].y, 0.0f);
      ASSERT_LT(l[i].y, 1.0f);
      EXPECT_EQ(l[i].x, again[i].x);
      EXPECT_EQ(l[i].y, again[i].y);
      same += l[i].x == h[i].x;
    }
    EXPECT_LT(same, 2);
  }
}

TEST(SobolOwen, PowerOfTwoSetsAreStratifiedOnBothAxes) {
  for (std::uint32_t n : {4u, 16u, 64u, 256u, 1024u}) {
    const auto s = make_sampler(SamplerKind::sobol_owen, n, 5);
    for (std::uint32_t t = 0; t < 4; ++t) {
      std::set<std::uint32_t> fx, fy;
      for (const Vec2& v : points(*s, t, 3 * t)) {
        fx.insert(static_cast<std::uint32_t>(double(v.x) * n));
        fy.insert(static_cast<std::uint32_t>(double(v.y) * n));
      }
      EXPECT_EQ(fx.size(), n);
      EXPECT_EQ(fy.size(), n);
    }
  }
}

TEST(Samplers, AllStayInTheUnitSquareAndAreDeterministic) {
  const auto mixers = default_mixer4();
  for (SamplerKind k : all_sampler_kinds) {
    SCOPED_TRACE(std::string(sampler_name(k)));
    const auto s = make_sampler(k, 100, 42, mixers);
    const auto a = points(*s, 3, 4), b = points(*s, 3, 4);
    double mean_x = 0, mean_y = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
      ASSERT_GE(a[i].x, 0.0f);
      ASSERT_LT(a[i].x, 1.0f);
      ASSERT_GE(a[i].y, 0.0f);
      ASSERT_LT(a[i].y, 1.0f);
      EXPECT_EQ(a[i].x, b[i].x);
      EXPECT_EQ(a[i].y, b[i].y);
      mean_x += a[i].x / 100.0;
      mean_y += a[i].y / 100.0;
    }
    EXPECT_NEAR(mean_x, 0.5, 0.15);
    EXPECT_NEAR(mean_y, 0.5, 0.15);
    EXPECT_EQ(sampler_from_name(sampler_name(k)), k);
  }
  EXPECT_THROW(sampler_from_name("halton"), std::invalid_argument);
  EXPECT_THROW(make_sampler(SamplerKind::mixforge_cmj, 16, 1, nullptr), std::invalid_argument);
}

TEST(PcgSampler, FollowsGodotsHashChain) {
  // Godot: noise = random_seed(ivec3(ray_from, atlas_pos)); each value = hash(value).
  auto hash = [](std::uint32_t value) {
    const std::uint32_t state = value * 747796405u + 2891336453u;
    const std::uint32_t word = ((state >> ((state >> 28u) + 4u)) ^ state) * 277803737u;
    return (word >> 22u) ^ word;
  };
  const auto s = make_sampler(SamplerKind::pcg, 8, 0);
  const auto p = points(*s, 12, 34);
  std::uint32_t noise = hash(0u ^ hash(12u ^ hash(34u)));
  for (int i = 0; i < 8; ++i) {
    noise = hash(noise);
    EXPECT_EQ(p[i].x, static_cast<float>(noise / 4294967296.0));
    noise = hash(noise);
    EXPECT_EQ(p[i].y, static_cast<float>(noise / 4294967296.0));
  }
}
