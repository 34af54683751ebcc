// The atlas: texel centres on their surfaces, charts apart, dilation into the gutters.
#include <gtest/gtest.h>

#include <cmath>

#include "baker/integrate/atlas.hpp"
#include "baker/scene/cornell_box.hpp"

using namespace mixforge::baker;

TEST(Atlas, TexelsLieOnTheirTrianglesWithTheirNormals) {
  const Scene s = cornell_box();
  const Atlas a = build_atlas(s, {0.1f, 2, 16, 16384});
  EXPECT_GT(a.texels.size(), 1000u);
  EXPECT_EQ(a.charts, 16u);
  // The Cornell room's surface area / texel area, within edge effects.
  for (const AtlasTexel& t : a.texels) {
    const Triangle& tri = s.triangles[t.triangle];
    const Vec3 n = a.triangle_normal[t.triangle];
    EXPECT_NEAR(dot(t.position - tri.v[0], n), 0, 1e-4);
    EXPECT_EQ(t.normal, n);
    EXPECT_EQ(a.index[std::size_t{t.y} * a.width + t.x], &t - a.texels.data());
  }
  // Tiles partition the texels.
  std::uint32_t next = 0;
  for (const Atlas::Tile& tile : a.tiles) {
    EXPECT_EQ(tile.begin, next);
    EXPECT_GT(tile.end, tile.begin);
    next = tile.end;
  }
  EXPECT_EQ(next, a.texels.size());
}

TEST(Atlas, TexelCountFollowsTheTexelSize) {
  const Scene s = cornell_box();
  const auto coarse = build_atlas(s, {0.2f, 2, 16, 16384}).texels.size();
  const auto fine = build_atlas(s, {0.1f, 2, 16, 16384}).texels.size();
  EXPECT_NEAR(double(fine) / double(coarse), 4.0, 0.6);
}

TEST(Atlas, TriangleUvsMapVerticesIntoTheirChart) {
  const Scene s = cornell_box();
  const Atlas a = build_atlas(s, {0.1f, 2, 16, 16384});
  for (std::size_t i = 0; i < s.triangles.size(); ++i) {
    // The distance between two vertices in texels equals their world distance / texel.
    const auto& uv = a.triangle_uv[i];
    const float du = std::hypot(uv[1].x - uv[0].x, uv[1].y - uv[0].y);
    EXPECT_NEAR(du, length(s.triangles[i].v[1] - s.triangles[i].v[0]) / 0.1f, 1e-2);
    for (const Vec2& p : uv) {
      EXPECT_GE(p.x, 0);
      EXPECT_GE(p.y, 0);
      EXPECT_LE(p.x, float(a.width));
      EXPECT_LE(p.y, float(a.height));
    }
  }
}

TEST(Atlas, DilationFillsGuttersSoBilinearLookupsNeverSeeBlack) {
  const Scene s = cornell_box();
  const Atlas a = build_atlas(s, {0.1f, 2, 16, 16384});
  Lightmap map{a.width, a.height, std::vector<Vec3>(a.index.size())};
  for (const AtlasTexel& t : a.texels) map.texels[std::size_t{t.y} * a.width + t.x] = {1, 1, 1};
  dilate(map, a, 3);
  // Lookups anywhere on any triangle (vertices, edge midpoints) read the constant.
  for (std::size_t i = 0; i < s.triangles.size(); ++i) {
    const auto& uv = a.triangle_uv[i];
    for (int k = 0; k < 3; ++k) {
      const Vec2 p = uv[k];
      const Vec2 mid{(uv[k].x + uv[(k + 1) % 3].x) / 2, (uv[k].y + uv[(k + 1) % 3].y) / 2};
      EXPECT_FLOAT_EQ(map.bilinear(p).x, 1.0f) << "triangle " << i << " vertex " << k;
      EXPECT_FLOAT_EQ(map.bilinear(mid).y, 1.0f) << "triangle " << i << " edge " << k;
    }
  }
}

TEST(Atlas, RefusesAnAtlasAboveTheLimit) {
  EXPECT_THROW(build_atlas(cornell_box(), {0.001f, 2, 16, 4096}), SceneError);
  EXPECT_THROW(build_atlas(cornell_box(), {0.0f, 2, 16, 4096}), SceneError);
}

// A two-sided material (Material::two_sided) gets a second chart for each face's back: its
// texels lie on the same triangles with the normal flipped, at their own atlas coordinates.
TEST(Atlas, TwoSidedFacesGetABackChartWithTheNormalFlipped) {
  Scene s;
  s.materials = {{"one", {0.5f, 0.5f, 0.5f}, {0, 0, 0}}, {"two", {0.5f, 0.5f, 0.5f}, {0, 0, 0}}};
  s.materials[1].two_sided = true;
  // Two unit squares (two triangles, one face each), normal +z, apart.
  for (std::uint32_t m = 0; m < 2; ++m) {
    const float x = 2.0f * float(m);
    s.triangles.push_back({{{x, 0, 0}, {x + 1, 0, 0}, {x + 1, 1, 0}}, m, std::nullopt, m});
    s.triangles.push_back({{{x, 0, 0}, {x + 1, 1, 0}, {x, 1, 0}}, m, std::nullopt, m});
  }
  const Atlas a = build_atlas(s, {0.1f, 2, 16, 16384});
  EXPECT_EQ(a.charts, 3u);
  EXPECT_EQ(a.back_charts, 1u);
  std::size_t front[2] = {0, 0}, back = 0;
  for (const AtlasTexel& t : a.texels) {
    const Triangle& tri = s.triangles[t.triangle];
    const Vec3 n = a.triangle_normal[t.triangle];
    EXPECT_NEAR(dot(t.position - tri.v[0], n), 0, 1e-4);
    if (t.back) {
      EXPECT_EQ(tri.material, 1u);
      EXPECT_EQ(t.normal, -n);
      ++back;
    } else {
      EXPECT_EQ(t.normal, n);
      ++front[tri.material];
    }
  }
  EXPECT_GT(front[1], 100u);
  EXPECT_NEAR(double(back), double(front[1]), 0.1 * double(front[1]));
  EXPECT_EQ(front[0], front[1]);
  // The back chart's coordinates lie apart from the front's.
  for (std::uint32_t i = 2; i < 4; ++i) {
    EXPECT_TRUE(a.two_sided[i]);
    EXPECT_NE(a.triangle_back_uv[i][0].x + a.triangle_back_uv[i][0].y * 1e4f,
              a.triangle_uv[i][0].x + a.triangle_uv[i][0].y * 1e4f);
  }
  EXPECT_FALSE(a.two_sided[0]);
}
