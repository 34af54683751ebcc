// Kensler's baseline reproduces the memo's published code (Pixar Technical Memo 13-01,
// listings 3-5), copied below verbatim as an independent reference, for fixed patterns.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "baker/sampling/kensler_cmj.hpp"
#include "baker/sampling/sampler.hpp"

namespace memo {
// --- Kensler 2013, verbatim apart from types spelled out ---
unsigned permute(unsigned i, unsigned l, unsigned p) {
  unsigned w = l - 1;
  w |= w >> 1;
  w |= w >> 2;
  w |= w >> 4;
  w |= w >> 8;
  w |= w >> 16;
  do {
    i ^= p; i *= 0xe170893d;
    i ^= p >> 16;
    i ^= (i & w) >> 4;
    i ^= p >> 8; i *= 0x0929eb3f;
    i ^= p >> 23;
    i ^= (i & w) >> 1; i *= 1 | p >> 27;
    i *= 0x6935fa69;
    i ^= (i & w) >> 11; i *= 0x74dcb303;
    i ^= (i & w) >> 2; i *= 0x9e501cc3;
    i ^= (i & w) >> 2; i *= 0xc860a3df;
    i &= w;
    i ^= i >> 5;
  } while (i >= l);
  return (i + p) % l;
}
float randfloat(unsigned i, unsigned p) {
  i ^= p;
  i ^= i >> 17;
  i ^= i >> 10; i *= 0xb36534e5;
  i ^= i >> 12;
  i ^= i >> 21; i *= 0x93fc4795;
  i ^= 0xdf6e307f;
  i ^= i >> 17; i *= 1 | p >> 18;
  return i * (1.0f / 4294967808.0f);
}
struct xy { float x, y; };
xy cmj(int s, int N, int p, float a = 1.0f) {
  int m = static_cast<int>(sqrtf(N * a));
  int n = (N + m - 1) / m;
  s = permute(s, N, p * 0x51633e2d);
  int sx = permute(s % m, m, p * 0x68bc21eb);
  int sy = permute(s / m, n, p * 0x02e5be93);
  float jx = randfloat(s, p * 0x967a889b);
  float jy = randfloat(s, p * 0x368cc8b7);
  xy r = {(sx + (sy + jx) / n) / m, (s + jy) / N};
  return r;
}
}  // namespace memo

using namespace mixforge::baker;

TEST(KenslerCmj, ReproducesThePublishedCode) {
  for (int N : {1, 4, 10, 16, 33, 64, 100, 256}) {
    for (int p : {0, 1, 0x1234, 51966}) {
      for (int s = 0; s < N; ++s) {
        const memo::xy want = memo::cmj(s, N, p);
        const Vec2 got = kensler::cmj(static_cast<std::uint32_t>(s), static_cast<std::uint32_t>(N),
                                      static_cast<std::uint32_t>(p));
        ASSERT_EQ(got.x, want.x) << "N " << N << " p " << p << " s " << s;
        ASSERT_EQ(got.y, want.y) << "N " << N << " p " << p << " s " << s;
      }
    }
  }
}

TEST(KenslerCmj, PermuteIsAPermutationForAnyLength) {
  for (unsigned l : {1u, 2u, 3u, 7u, 16u, 17u, 100u}) {
    std::set<unsigned> seen;
    for (unsigned i = 0; i < l; ++i) seen.insert(kensler::permute(i, l, 0xdeadbeef));
    EXPECT_EQ(seen.size(), l);
    EXPECT_LT(*seen.rbegin(), l);
  }
}

TEST(KenslerCmj, SquareCountsAreStratifiedOnBothAxes) {
  // With N = m * m the memo's pattern puts one sample in each of the N row strata (y =
  // (s + jy) / N) and each of the N column strata.
  const auto s = make_sampler(SamplerKind::kensler_cmj, 64, 9);
  std::vector<SamplerState> st{s->start(1, 1, 0, hemisphere_pattern)};
  std::set<int> fx, fy;
  for (std::uint32_t i = 0; i < 64; ++i) {
    Vec2 v;
    s->generate(st, i, {&v, 1});
    fx.insert(static_cast<int>(v.x * 64));
    fy.insert(static_cast<int>(v.y * 64));
  }
  EXPECT_EQ(fx.size(), 64u);
  EXPECT_EQ(fy.size(), 64u);
}
