#pragma once
// The lightmap atlas: one planar chart per face (Quake style) at `texel_size` world units
// per texel, and a second one for the back of a two-sided face (Material::two_sided), packed on shelves with `gutter` empty texels around every chart. Covered
// texels know their world position and normal; they are stored tile by tile (tile x tile
// texels, tiles and the texels inside a tile in Morton order), the order the integrator
// traces them in.
#include <array>
#include <cstdint>
#include <vector>

#include "baker/scene/scene.hpp"

namespace mixforge::baker {

struct AtlasOptions {
  float texel_size = 0.05f;     // world units per texel
  std::uint32_t gutter = 2;     // empty texels around each chart (filled by dilation)
  std::uint32_t tile = 16;      // tile edge in texels
  std::uint32_t max_size = 16384;  // the atlas may not be larger than this on either side
};

// How far the rays of a point on `t` start from its plane: 4 ulps of the triangle's largest
// coordinate on any axis (pbrt-v4's error bound for a point interpolated on a triangle,
// gamma(7) |p|, is 1.75 to 3.5 ulps; a tracer computes a plane's distance from all three
// axes, so a floor at z = 0 far from x = 0 counts its x). It follows the triangle's distance
// from the origin, not the scene's size. Never 0.
float surface_offset(const Triangle& t);
// How far a texel's sample point stays from its triangle's edges (when the triangle is large
// enough): 16 ray offsets, so that a neighbouring face meeting the triangle at an edge is hit,
// if at all, at a distance far beyond the offset (no tie at tnear).
inline constexpr float kEdgeClearance = 16;

// Where in its texel a texel's sample point lies, from the centre (texels): off the grid
// that brush corners and light origins lie on (see build_atlas).
inline constexpr Vec2 kSampleShift{0.0014142f, 0.0017321f};

struct AtlasTexel {
  std::uint32_t x = 0, y = 0;  // atlas coordinates
  Vec3 position;               // on the surface, clamped into its triangle
  Vec3 normal;                 // the receiving side's unit normal
  std::uint32_t triangle = 0;
  bool back = false;           // on the back side of a two-sided triangle (normal flipped)
};

struct Atlas {
  std::uint32_t width = 0, height = 0;
  AtlasOptions options;
  std::vector<AtlasTexel> texels;                // covered texels, tile-major Morton order
  std::vector<std::int32_t> index;               // width * height: texel index or -1
  std::vector<std::array<Vec2, 3>> triangle_uv;  // per scene triangle: atlas coordinates
                                                 // (texel (x, y) has its centre at x+.5, y+.5)
  std::vector<Vec3> triangle_normal;             // per scene triangle, unit (its front)
  // Per scene triangle: 1 when its material is two-sided; then triangle_back_uv holds the
  // atlas coordinates of its back side's chart (a second chart, the normal flipped).
  std::vector<std::uint8_t> two_sided;
  std::vector<std::array<Vec2, 3>> triangle_back_uv;
  struct Tile {
    std::uint32_t begin = 0, end = 0;  // range in texels
  };
  std::vector<Tile> tiles;
  std::size_t charts = 0;       // back-side charts included
  std::size_t back_charts = 0;  // of which for the back of two-sided triangles
};

// Throws SceneError when the scene needs an atlas above max_size (name a larger --texel).
Atlas build_atlas(const Scene& scene, const AtlasOptions& options);

// An RGB image over the atlas.
struct Lightmap {
  std::uint32_t width = 0, height = 0;
  std::vector<Vec3> texels;  // row-major
  Vec3 at(std::uint32_t x, std::uint32_t y) const { return texels[std::size_t{y} * width + x]; }
  // Bilinear lookup at atlas coordinates (clamped at the border).
  Vec3 bilinear(Vec2 p) const;
};

// Fills uncovered texels next to covered ones with the mean of their covered (or already
// filled) 8-neighbours, `passes` rings deep, so bilinear lookups near chart edges never
// read black.
void dilate(Lightmap& map, const Atlas& atlas, std::uint32_t passes);

}  // namespace mixforge::baker
