#include "baker/integrate/atlas.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <numeric>
#include <optional>
#include <string>

#include "baker/sampling/morton.hpp"

namespace mixforge::baker {
namespace {

struct Chart {
  std::vector<std::uint32_t> triangles;
  bool back = false;  // the back side of two-sided triangles
  std::vector<std::array<Vec2, 3>> local;  // chart-local texel coordinates (gutter included)
  std::uint32_t w = 0, h = 0;
  std::uint32_t ox = 0, oy = 0;
};

Vec2 sub(Vec2 a, Vec2 b) { return {a.x - b.x, a.y - b.y}; }
float dot2(Vec2 a, Vec2 b) { return a.x * b.x + a.y * b.y; }

// Closest point on triangle abc to p (Ericson, Real-Time Collision Detection 5.1.5), as
// barycentric weights of a, b, c.
std::array<float, 3> closest_barycentric(Vec2 p, Vec2 a, Vec2 b, Vec2 c) {
  const Vec2 ab = sub(b, a), ac = sub(c, a), ap = sub(p, a);
  const float d1 = dot2(ab, ap), d2 = dot2(ac, ap);
  if (d1 <= 0 && d2 <= 0) return {1, 0, 0};
  const Vec2 bp = sub(p, b);
  const float d3 = dot2(ab, bp), d4 = dot2(ac, bp);
  if (d3 >= 0 && d4 <= d3) return {0, 1, 0};
  const float vc = d1 * d4 - d3 * d2;
  if (vc <= 0 && d1 >= 0 && d3 <= 0) {
    const float v = d1 / (d1 - d3);
    return {1 - v, v, 0};
  }
  const Vec2 cp = sub(p, c);
  const float d5 = dot2(ab, cp), d6 = dot2(ac, cp);
  if (d6 >= 0 && d5 <= d6) return {0, 0, 1};
  const float vb = d5 * d2 - d1 * d6;
  if (vb <= 0 && d2 >= 0 && d6 <= 0) {
    const float w = d2 / (d2 - d6);
    return {1 - w, 0, w};
  }
  const float va = d3 * d6 - d5 * d4;
  if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) {
    const float w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
    return {0, 1 - w, w};
  }
  const float denom = 1 / (va + vb + vc);
  const float v = vb * denom, w = vc * denom;
  return {1 - v - w, v, w};
}

// The point with weights b on t, at least kEdgeClearance ray offsets from each edge (the
// weights mapped into the smaller triangle whose sides lie that far inside; the incentre when
// the triangle is too small), computed in double from weights that sum to 1: the position's
// only error is its rounding to float, half an ulp per axis, which the ray offset covers.
Vec3 clear_of_edges(const Triangle& t, std::array<float, 3> b) {
  double w[3], p[3][3];
  for (int k = 0; k < 3; ++k)
    for (int c = 0; c < 3; ++c) p[k][c] = t.v[k][c];
  const auto edge = [&](int k) {  // the side opposite vertex k
    const double* a = p[(k + 1) % 3];
    const double* e = p[(k + 2) % 3];
    return std::sqrt((a[0] - e[0]) * (a[0] - e[0]) + (a[1] - e[1]) * (a[1] - e[1]) + (a[2] - e[2]) * (a[2] - e[2]));
  };
  const double u[3] = {p[1][0] - p[0][0], p[1][1] - p[0][1], p[1][2] - p[0][2]};
  const double v[3] = {p[2][0] - p[0][0], p[2][1] - p[0][1], p[2][2] - p[0][2]};
  const double cx = u[1] * v[2] - u[2] * v[1], cy = u[2] * v[0] - u[0] * v[2], cz = u[0] * v[1] - u[1] * v[0];
  const double area2 = std::sqrt(cx * cx + cy * cy + cz * cz);  // twice the area
  const double clearance = double(kEdgeClearance) * surface_offset(t);
  double sides[3], margin[3], total_margin = 0, perimeter = 0;
  for (int k = 0; k < 3; ++k) {
    sides[k] = edge(k);
    perimeter += sides[k];
    // Weight k is the distance from side k over the altitude onto it (area2 / side).
    margin[k] = area2 > 0 ? clearance * sides[k] / area2 : 0;
    total_margin += margin[k];
  }
  const double sum = double(b[0]) + double(b[1]) + double(b[2]);
  for (int k = 0; k < 3; ++k) {
    if (total_margin >= 1 && perimeter > 0)
      w[k] = sides[k] / perimeter;  // the incentre
    else
      w[k] = margin[k] + (1 - total_margin) * (double(b[k]) / sum);
  }
  Vec3 out;
  for (int c = 0; c < 3; ++c) out[c] = static_cast<float>(w[0] * p[0][c] + w[1] * p[1][c] + w[2] * p[2][c]);
  return out;
}

// The triangles of each chart: one chart per face (triangles of one face id, or a triangle
// of its own), then one for the back of its two-sided triangles (back: the normal flipped).
// Sky windows get none. Fills atlas.triangle_normal and atlas.two_sided.
std::vector<std::pair<std::vector<std::uint32_t>, bool>> chart_sides(const Scene& scene, Atlas& atlas) {
  std::map<std::int64_t, std::vector<std::uint32_t>> faces;
  std::vector<std::vector<std::uint32_t>> groups;
  for (std::uint32_t i = 0; i < scene.triangles.size(); ++i) {
    const Triangle& t = scene.triangles[i];
    atlas.triangle_normal[i] = normalize(cross(t.v[1] - t.v[0], t.v[2] - t.v[0]));
    if (scene.materials[t.material].sky) continue;  // a window onto the sky: no texels
    atlas.two_sided[i] = scene.materials[t.material].two_sided;
    if (t.face >= 0)
      faces[t.face].push_back(i);
    else
      groups.push_back({i});
  }
  for (auto& [id, tris] : faces) groups.push_back(std::move(tris));
  std::vector<std::pair<std::vector<std::uint32_t>, bool>> sides;
  for (auto& tris : groups) {
    std::vector<std::uint32_t> back;
    for (std::uint32_t i : tris)
      if (atlas.two_sided[i]) back.push_back(i);
    sides.emplace_back(std::move(tris), false);
    if (!back.empty()) sides.emplace_back(std::move(back), true);
  }
  return sides;
}

// A side's triangles projected onto the plane of their summed normal, in texels, with the
// gutter around them; none for a degenerate face (nothing to light). Throws SceneError when
// the chart is larger than options.max_size.
std::optional<Chart> make_chart(const Scene& scene, std::vector<std::uint32_t> tris, bool back,
                                const AtlasOptions& options) {
  const float inv = 1.0f / options.texel_size;
  const float g = static_cast<float>(options.gutter);
  Vec3 n{};
  for (std::uint32_t i : tris) {
    const Triangle& t = scene.triangles[i];
    n += cross(t.v[1] - t.v[0], t.v[2] - t.v[0]);
  }
  if (length(n) == 0) return std::nullopt;
  const Frame frame(normalize(back ? -n : n));
  Chart c;
  c.triangles = std::move(tris);
  c.back = back;
  float umin = INFINITY, vmin = INFINITY, umax = -INFINITY, vmax = -INFINITY;
  for (std::uint32_t i : c.triangles) {
    std::array<Vec2, 3> uv;
    for (int k = 0; k < 3; ++k) {
      const Vec3 p = scene.triangles[i].v[k];
      uv[k] = {dot(p, frame.t) * inv, dot(p, frame.b) * inv};
      umin = std::fmin(umin, uv[k].x);
      vmin = std::fmin(vmin, uv[k].y);
      umax = std::fmax(umax, uv[k].x);
      vmax = std::fmax(vmax, uv[k].y);
    }
    c.local.push_back(uv);
  }
  const double cw = std::ceil(double(umax) - umin) + 2.0 * g;
  const double ch = std::ceil(double(vmax) - vmin) + 2.0 * g;
  // Compared and printed as doubles: at a tiny texel size they overflow any integer.
  if (!(cw <= options.max_size && ch <= options.max_size)) {
    char size[96];
    std::snprintf(size, sizeof size, "%.4g x %.4g texel chart at texel size %g", cw, ch, options.texel_size);
    throw SceneError(std::string("a face needs a ") + size + ", above the " + std::to_string(options.max_size) +
                     " limit: choose a larger --texel");
  }
  c.w = static_cast<std::uint32_t>(cw);
  c.h = static_cast<std::uint32_t>(ch);
  for (auto& uv : c.local)
    for (auto& p : uv) p = {p.x - umin + g, p.y - vmin + g};
  return c;
}

// Shelf packing, tallest charts first, into a width of about the square root of their area:
// sets each chart's origin and the atlas's size. Throws SceneError above options.max_size.
void pack_charts(std::vector<Chart>& charts, const AtlasOptions& options, Atlas& atlas) {
  std::vector<std::size_t> order(charts.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return charts[a].h != charts[b].h ? charts[a].h > charts[b].h : charts[a].w > charts[b].w;
  });
  double area = 0;
  std::uint32_t widest = 0;
  for (const Chart& c : charts) {
    area += double(c.w) * c.h;
    widest = std::max(widest, c.w);
  }
  const std::uint32_t width =
      std::max<std::uint32_t>(widest, static_cast<std::uint32_t>(std::ceil(std::sqrt(area * 1.1))));
  std::uint32_t x = 0, y = 0, shelf = 0;
  for (std::size_t k : order) {
    Chart& c = charts[k];
    if (x + c.w > width) {
      y += shelf;
      x = 0;
      shelf = 0;
    }
    c.ox = x;
    c.oy = y;
    x += c.w;
    shelf = std::max(shelf, c.h);
  }
  const std::uint64_t height = std::uint64_t{y} + shelf;
  if (width > options.max_size || height > options.max_size)
    throw SceneError("the atlas would be " + std::to_string(width) + " x " + std::to_string(height) +
                     " texels at texel size " + std::to_string(options.texel_size) + ", above the " +
                     std::to_string(options.max_size) + " limit: choose a larger --texel");
  atlas.width = width;
  atlas.height = static_cast<std::uint32_t>(height);
}

// Texel (px, py) of chart c when it is covered: its centre lies within half a texel diagonal
// of one of the chart's triangles. Its sample point is the closest point on that triangle
// (never outside the surface, so rays do not start inside walls).
std::optional<AtlasTexel> chart_texel(const Scene& scene, const Atlas& atlas, const Chart& c, std::uint32_t px,
                                      std::uint32_t py) {
  const float reach2 = 0.5f;  // (sqrt(2) / 2)^2
  // Coverage is decided at the texel's centre; the sample point is the centre moved by
  // a few thousandths of a texel. A centre lies on Quake's grid as brush corners and
  // light origins do, and a ray from there to a light passes exactly through corner
  // edges, which the back ends count differently (a tie either way); moved off the
  // grid, it does not.
  const Vec2 centre{px + 0.5f, py + 0.5f};
  float best = INFINITY;
  for (std::size_t k = 0; k < c.triangles.size(); ++k) {
    const auto& l = c.local[k];
    const auto b = closest_barycentric(centre, l[0], l[1], l[2]);
    const Vec2 q{b[0] * l[0].x + b[1] * l[1].x + b[2] * l[2].x, b[0] * l[0].y + b[1] * l[1].y + b[2] * l[2].y};
    best = std::min(best, dot2(sub(centre, q), sub(centre, q)));
  }
  if (best > reach2) return std::nullopt;
  const Vec2 p{centre.x + kSampleShift.x, centre.y + kSampleShift.y};
  best = INFINITY;
  AtlasTexel texel;
  for (std::size_t k = 0; k < c.triangles.size(); ++k) {
    const auto& l = c.local[k];
    auto b = closest_barycentric(p, l[0], l[1], l[2]);
    const Vec2 q{b[0] * l[0].x + b[1] * l[1].x + b[2] * l[2].x, b[0] * l[0].y + b[1] * l[1].y + b[2] * l[2].y};
    const float d2 = dot2(sub(p, q), sub(p, q));
    if (d2 < best) {
      best = d2;
      const Triangle& t = scene.triangles[c.triangles[k]];
      // A centre outside the triangle is clamped onto its border; pull it slightly
      // inside, so that a texel on a corner of a closed room does not start its rays
      // in the plane of the neighbouring wall (where they could slip out).
      // So also a point on the border itself. Then at least kEdgeClearance ray offsets
      // from every edge, computed in double (clear_of_edges).
      const bool border = d2 > 0 || b[0] <= 0 || b[1] <= 0 || b[2] <= 0;
      const float inset = border ? 1e-3f : 0.0f;
      for (float& w : b) w = w * (1 - inset) + inset / 3;
      texel.position = clear_of_edges(t, b);
      texel.triangle = c.triangles[k];
    }
  }
  texel.x = c.ox + px;
  texel.y = c.oy + py;
  texel.back = c.back;
  texel.normal = c.back ? -atlas.triangle_normal[texel.triangle] : atlas.triangle_normal[texel.triangle];
  return texel;
}

// The covered texels in tile-major Morton order into atlas.texels, with atlas.index and
// atlas.tiles.
void order_by_tiles(std::vector<AtlasTexel> covered, const AtlasOptions& options, Atlas& atlas) {
  const std::uint32_t tile = std::max<std::uint32_t>(options.tile, 1);
  auto key = [&](const AtlasTexel& t) {
    const std::uint64_t tk = morton2(t.x / tile, t.y / tile);
    return (tk << 32) | morton2(t.x % tile, t.y % tile);
  };
  std::sort(covered.begin(), covered.end(), [&](const AtlasTexel& a, const AtlasTexel& b) { return key(a) < key(b); });
  atlas.texels = std::move(covered);
  atlas.index.assign(std::size_t{atlas.width} * atlas.height, -1);
  for (std::uint32_t i = 0; i < atlas.texels.size(); ++i) {
    const AtlasTexel& t = atlas.texels[i];
    atlas.index[std::size_t{t.y} * atlas.width + t.x] = static_cast<std::int32_t>(i);
    const std::uint64_t tk = key(t) >> 32;
    if (atlas.tiles.empty() || (key(atlas.texels[atlas.tiles.back().begin]) >> 32) != tk)
      atlas.tiles.push_back({i, i});
    atlas.tiles.back().end = i + 1;
  }
}

}  // namespace

float surface_offset(const Triangle& t) {
  float m = 0;
  for (int c = 0; c < 3; ++c) m = std::max({m, std::fabs(t.v[0][c]), std::fabs(t.v[1][c]), std::fabs(t.v[2][c])});
  const float ulp = std::nextafter(m, INFINITY) - m;
  return std::max(4 * ulp, 1e-30f);
}

Atlas build_atlas(const Scene& scene, const AtlasOptions& options) {
  if (!(options.texel_size > 0) || !std::isfinite(options.texel_size))
    throw SceneError("texel size must be a positive number");
  Atlas atlas;
  atlas.options = options;
  const std::size_t nt = scene.triangles.size();
  atlas.triangle_uv.resize(nt);
  atlas.triangle_normal.resize(nt);
  atlas.two_sided.resize(nt);
  atlas.triangle_back_uv.resize(nt);

  std::vector<Chart> charts;
  for (auto& [tris, back] : chart_sides(scene, atlas))
    if (auto c = make_chart(scene, std::move(tris), back, options)) charts.push_back(std::move(*c));
  atlas.charts = charts.size();
  for (const Chart& c : charts) atlas.back_charts += c.back;
  pack_charts(charts, options, atlas);

  std::vector<AtlasTexel> covered;
  for (const Chart& c : charts) {
    for (std::size_t k = 0; k < c.triangles.size(); ++k) {
      auto& uv = (c.back ? atlas.triangle_back_uv : atlas.triangle_uv)[c.triangles[k]];
      for (int v = 0; v < 3; ++v) uv[v] = {c.local[k][v].x + float(c.ox), c.local[k][v].y + float(c.oy)};
    }
    for (std::uint32_t py = 0; py < c.h; ++py)
      for (std::uint32_t px = 0; px < c.w; ++px)
        if (auto texel = chart_texel(scene, atlas, c, px, py)) covered.push_back(*texel);
  }
  order_by_tiles(std::move(covered), options, atlas);
  return atlas;
}

Vec3 Lightmap::bilinear(Vec2 p) const {
  const float fx = std::clamp(p.x - 0.5f, 0.0f, float(width - 1));
  const float fy = std::clamp(p.y - 0.5f, 0.0f, float(height - 1));
  const std::uint32_t x0 = static_cast<std::uint32_t>(fx), y0 = static_cast<std::uint32_t>(fy);
  const std::uint32_t x1 = std::min(x0 + 1, width - 1), y1 = std::min(y0 + 1, height - 1);
  const float tx = fx - float(x0), ty = fy - float(y0);
  return (at(x0, y0) * (1 - tx) + at(x1, y0) * tx) * (1 - ty) +
         (at(x0, y1) * (1 - tx) + at(x1, y1) * tx) * ty;
}

void dilate(Lightmap& map, const Atlas& atlas, std::uint32_t passes) {
  std::vector<std::uint8_t> valid(atlas.index.size());
  for (std::size_t i = 0; i < valid.size(); ++i) valid[i] = atlas.index[i] >= 0;
  const int w = static_cast<int>(map.width), h = static_cast<int>(map.height);
  for (std::uint32_t pass = 0; pass < passes; ++pass) {
    std::vector<std::uint8_t> next = valid;
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        const std::size_t i = std::size_t(y) * w + x;
        if (valid[i]) continue;
        Vec3 sum{};
        int count = 0;
        for (int dy = -1; dy <= 1; ++dy)
          for (int dx = -1; dx <= 1; ++dx) {
            const int nx = x + dx, ny = y + dy;
            if ((dx == 0 && dy == 0) || nx < 0 || ny < 0 || nx >= w || ny >= h) continue;
            const std::size_t j = std::size_t(ny) * w + nx;
            if (!valid[j]) continue;
            sum += map.texels[j];
            ++count;
          }
        if (count) {
          map.texels[i] = sum / float(count);
          next[i] = 1;
        }
      }
    valid.swap(next);
  }
}

}  // namespace mixforge::baker
