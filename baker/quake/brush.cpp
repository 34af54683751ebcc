#include "baker/quake/brush.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>

namespace mixforge::quake {

namespace {

Vec3 newell(const std::vector<Vec3>& polygon) {
  Vec3 n;
  for (std::size_t i = 0; i < polygon.size(); ++i) {
    n = n + cross(polygon[i], polygon[(i + 1) % polygon.size()]);
  }
  return n * 0.5;  // the area vector
}

// A square on the plane around the projection of `centre`, half-size `size`,
// counter-clockwise around the normal.
std::vector<Vec3> base_polygon(const Plane& p, Vec3 centre, double size) {
  const Vec3 n = p.normal;
  Vec3 up = std::fabs(n.z) > std::fabs(n.x) && std::fabs(n.z) > std::fabs(n.y) ? Vec3{1, 0, 0}
                                                                               : Vec3{0, 0, 1};
  up = normalize(up - n * dot(up, n));
  const Vec3 right = cross(up, n);
  const Vec3 origin = centre - n * (dot(n, centre) - p.distance);
  std::vector<Vec3> poly = {origin - right * size + up * size, origin + right * size + up * size,
                            origin + right * size - up * size, origin - right * size - up * size};
  if (dot(newell(poly), n) < 0) std::reverse(poly.begin(), poly.end());
  return poly;
}

// Keeps the part of `poly` where dot(n, x) <= d (+ epsilon); empty if nothing remains.
std::vector<Vec3> clip_back(const std::vector<Vec3>& poly, const Plane& p) {
  const std::size_t count = poly.size();
  std::vector<double> dist(count);
  std::vector<int> side(count);  // 1 front (outside), -1 back, 0 on
  bool any_front = false, any_back = false;
  for (std::size_t i = 0; i < count; ++i) {
    dist[i] = dot(p.normal, poly[i]) - p.distance;
    side[i] = dist[i] > kPlaneEpsilon ? 1 : dist[i] < -kPlaneEpsilon ? -1 : 0;
    any_front |= side[i] == 1;
    any_back |= side[i] == -1;
  }
  if (!any_front) return poly;
  if (!any_back) return {};
  std::vector<Vec3> out;
  out.reserve(count + 2);
  for (std::size_t i = 0; i < count; ++i) {
    const std::size_t j = (i + 1) % count;
    if (side[i] != 1) out.push_back(poly[i]);
    if (side[i] * side[j] == -1) {
      const double t = dist[i] / (dist[i] - dist[j]);
      Vec3 mid = poly[i] + (poly[j] - poly[i]) * t;
      // Exact on axial planes, so axis-aligned brushes keep integer corners.
      if (p.normal.x == 1) mid.x = p.distance;
      if (p.normal.x == -1) mid.x = -p.distance;
      if (p.normal.y == 1) mid.y = p.distance;
      if (p.normal.y == -1) mid.y = -p.distance;
      if (p.normal.z == 1) mid.z = p.distance;
      if (p.normal.z == -1) mid.z = -p.distance;
      out.push_back(mid);
    }
  }
  return out;
}

// Drops vertices that repeat their predecessor, then polygons too small to matter.
std::vector<Vec3> tidy(std::vector<Vec3> poly) {
  std::vector<Vec3> out;
  for (const Vec3& v : poly) {
    if (out.empty() || length(v - out.back()) > kPlaneEpsilon) out.push_back(v);
  }
  while (out.size() > 1 && length(out.front() - out.back()) <= kPlaneEpsilon) out.pop_back();
  if (out.size() < 3 || length(newell(out)) <= kPlaneEpsilon) return {};
  return out;
}

bool same_plane(const Plane& a, const Plane& b) {
  return dot(a.normal, b.normal) > 1 - 1e-12 && std::fabs(a.distance - b.distance) <= kPlaneEpsilon;
}

}  // namespace

namespace {

// The planes intersected with the box [lo, hi].
ConvexPolyhedron clip_in_box(std::span<const Plane> planes, Vec3 lo, Vec3 hi) {
  std::vector<Plane> all(planes.begin(), planes.end());
  const std::size_t given = all.size();
  all.push_back({{1, 0, 0}, hi.x});
  all.push_back({{-1, 0, 0}, -lo.x});
  all.push_back({{0, 1, 0}, hi.y});
  all.push_back({{0, -1, 0}, -lo.y});
  all.push_back({{0, 0, 1}, hi.z});
  all.push_back({{0, 0, -1}, -lo.z});
  const Vec3 centre = (lo + hi) * 0.5;
  const double size = 2 * length(hi - lo);
  ConvexPolyhedron solid;
  for (std::size_t i = 0; i < all.size(); ++i) {
    std::vector<Vec3> poly = base_polygon(all[i], centre, size);
    for (std::size_t j = 0; j < all.size() && !poly.empty(); ++j) {
      if (j == i) continue;
      if (same_plane(all[i], all[j])) {
        if (j < i) poly.clear();  // the first of identical planes carries the face
        continue;
      }
      poly = clip_back(poly, all[j]);
    }
    poly = tidy(std::move(poly));
    if (poly.empty()) continue;
    const int index = i < given ? static_cast<int>(i) : -1 - static_cast<int>(i - given);
    if (i >= given) solid.bounded = false;
    solid.faces.push_back({std::move(poly), index});
  }
  return solid;
}

}  // namespace

ConvexPolyhedron intersect_half_spaces(std::span<const Plane> planes, double bound) {
  // Pass 1 in the big cube finds whether the solid is finite and where it is; pass 2 clips
  // again in a box just around it, so the starting squares are small and the corners exact
  // to a few ulps of the brush's own size rather than of the cube's.
  ConvexPolyhedron coarse = clip_in_box(planes, {-bound, -bound, -bound}, {bound, bound, bound});
  if (!coarse.bounded || coarse.faces.empty()) return coarse;
  Vec3 lo = coarse.faces.front().vertices.front(), hi = lo;
  for (const auto& f : coarse.faces) {
    for (const Vec3& v : f.vertices) {
      lo = {std::min(lo.x, v.x), std::min(lo.y, v.y), std::min(lo.z, v.z)};
      hi = {std::max(hi.x, v.x), std::max(hi.y, v.y), std::max(hi.z, v.z)};
    }
  }
  const double margin = 1 + 0.01 * length(hi - lo);
  const Vec3 pad{margin, margin, margin};
  ConvexPolyhedron fine = clip_in_box(planes, lo - pad, hi + pad);
  // The margin keeps the box's own sides out of the result; drop any rounding sliver anyway.
  std::erase_if(fine.faces, [](const ConvexPolygon& f) { return f.plane < 0; });
  fine.bounded = true;
  return fine;
}

double polygon_area(const std::vector<Vec3>& polygon) { return length(newell(polygon)); }

PolygonSplit split_polygon(const std::vector<Vec3>& poly, const Plane& p) {
  const std::size_t count = poly.size();
  std::vector<double> dist(count);
  std::vector<int> side(count);  // 1 front, -1 back, 0 on
  bool any_front = false, any_back = false;
  for (std::size_t i = 0; i < count; ++i) {
    dist[i] = dot(p.normal, poly[i]) - p.distance;
    side[i] = dist[i] > kPlaneEpsilon ? 1 : dist[i] < -kPlaneEpsilon ? -1 : 0;
    any_front |= side[i] == 1;
    any_back |= side[i] == -1;
  }
  PolygonSplit out;
  if (!any_front && !any_back) {
    out.on = true;
    return out;
  }
  if (!any_back) {
    out.front = poly;
    return out;
  }
  if (!any_front) {
    out.back = poly;
    return out;
  }
  // clip_back keeps the back; the front is the back of the flipped plane.
  out.back = tidy(clip_back(poly, p));
  out.front = tidy(clip_back(poly, Plane{p.normal * -1, -p.distance}));
  return out;
}

double polyhedron_volume(const ConvexPolyhedron& solid) {
  double volume = 0;
  for (const auto& f : solid.faces) {
    if (f.vertices.empty()) continue;
    volume += dot(newell(f.vertices), f.vertices.front());
  }
  return volume / 3;
}

Brush build_brush(const BrushDef& def, const std::string& file, std::size_t entity) {
  std::vector<Plane> planes;
  planes.reserve(def.faces.size());
  for (const FaceDef& f : def.faces) planes.push_back({f.normal(), f.distance()});
  const ConvexPolyhedron solid = intersect_half_spaces(planes);
  const auto where = [](Location at) {
    return std::to_string(at.line) + ":" + std::to_string(at.column);
  };
  if (!solid.bounded) {
    throw MapError(file, def.where,
                   "brush is not closed: its " + std::to_string(def.faces.size()) +
                       " faces do not enclose a finite solid");
  }
  const double volume = polyhedron_volume(solid);
  if (solid.faces.empty() || !(volume > kPlaneEpsilon)) {
    throw MapError(file, def.where,
                   "brush encloses no volume: the half-spaces of its faces (from " +
                       where(def.faces.front().where) + ") do not intersect");
  }
  Brush brush;
  brush.entity = entity;
  brush.where = def.where;
  for (const ConvexPolygon& p : solid.faces) {
    const FaceDef& f = def.faces[static_cast<std::size_t>(p.plane)];
    brush.faces.push_back({p.vertices, planes[static_cast<std::size_t>(p.plane)].normal,
                           planes[static_cast<std::size_t>(p.plane)].distance, f.texture,
                           f.projection(), f.where});
  }
  return brush;
}

bool BrushSelection::selects(const Entity& entity) const {
  const std::string name = entity.classname();
  if (std::find(classnames.begin(), classnames.end(), name) == classnames.end()) return false;
  return !(name == "func_group" && entity.value("_tb_layer_omit_from_export") == "1");
}

std::vector<Brush> build_brushes(const QuakeMap& map, const BrushSelection& selection) {
  std::vector<Brush> out;
  for (std::size_t e = 0; e < map.entities.size(); ++e) {
    const Entity& entity = map.entities[e];
    if (entity.brushes.empty() || !selection.selects(entity)) continue;
    for (const BrushDef& b : entity.brushes) out.push_back(build_brush(b, map.file, e));
  }
  return out;
}

namespace {

struct Box {
  Vec3 lo, hi;
};

Box bounds_of(const Brush& b) {
  Box box{b.faces.front().polygon.front(), b.faces.front().polygon.front()};
  for (const BrushFace& f : b.faces)
    for (const Vec3& v : f.polygon) {
      box.lo = {std::min(box.lo.x, v.x), std::min(box.lo.y, v.y), std::min(box.lo.z, v.z)};
      box.hi = {std::max(box.hi.x, v.x), std::max(box.hi.y, v.y), std::max(box.hi.z, v.z)};
    }
  return box;
}

bool boxes_touch(const Box& a, const Box& b) {
  const double e = kPlaneEpsilon;
  return a.lo.x <= b.hi.x + e && b.lo.x <= a.hi.x + e && a.lo.y <= b.hi.y + e &&
         b.lo.y <= a.hi.y + e && a.lo.z <= b.hi.z + e && b.lo.z <= a.hi.z + e;
}

// ericw-tools' ClipInside for one face piece against one brush: the pieces of `piece` outside
// `occluder`, or nullopt when no part of it is hidden (the piece stays whole). `later`: the
// occluder comes after the piece's brush (it wins a same-facing coplanar overlap).
std::optional<std::vector<std::vector<Vec3>>> outside_of(const std::vector<Vec3>& piece,
                                                          Vec3 normal, const Brush& occluder,
                                                          bool later) {
  std::vector<std::vector<Vec3>> outside;
  std::vector<Vec3> inside = piece;
  for (const BrushFace& g : occluder.faces) {
    PolygonSplit split = split_polygon(inside, Plane{g.normal, g.distance});
    if (split.on) {
      // In the occluder's face plane: hidden when facing into the occluder (back to back),
      // or facing the same way under a later brush's face; else it is the visible one.
      if (dot(normal, g.normal) > 0 && !later) return std::nullopt;
      continue;
    }
    if (!split.front.empty()) outside.push_back(std::move(split.front));
    inside = std::move(split.back);
    if (inside.empty()) return std::nullopt;
  }
  return outside;
}

}  // namespace

std::vector<std::vector<std::vector<std::vector<Vec3>>>> visible_parts(
    const std::vector<Brush>& brushes,
    const std::function<bool(std::size_t hider, std::size_t hidden)>& hides) {
  std::vector<Box> boxes;
  boxes.reserve(brushes.size());
  for (const Brush& b : brushes) boxes.push_back(bounds_of(b));
  std::vector<std::vector<std::vector<std::vector<Vec3>>>> out(brushes.size());
  for (std::size_t a = 0; a < brushes.size(); ++a) {
    out[a].resize(brushes[a].faces.size());
    for (std::size_t f = 0; f < brushes[a].faces.size(); ++f) {
      const BrushFace& face = brushes[a].faces[f];
      std::vector<std::vector<Vec3>> pieces{face.polygon};
      for (std::size_t b = 0; b < brushes.size() && !pieces.empty(); ++b) {
        if (b == a || !boxes_touch(boxes[a], boxes[b]) || !hides(b, a)) continue;
        std::vector<std::vector<Vec3>> next;
        for (auto& piece : pieces) {
          auto outside = outside_of(piece, face.normal, brushes[b], b > a);
          if (!outside) {
            next.push_back(std::move(piece));
            continue;
          }
          for (auto& o : *outside) next.push_back(std::move(o));
        }
        pieces = std::move(next);
      }
      out[a][f] = std::move(pieces);
    }
  }
  return out;
}

std::vector<std::size_t> piece_groups(const std::vector<std::vector<Vec3>>& pieces) {
  std::vector<std::size_t> parent(pieces.size());
  for (std::size_t i = 0; i < parent.size(); ++i) parent[i] = i;
  const auto root = [&](std::size_t i) {
    while (parent[i] != i) i = parent[i] = parent[parent[i]];
    return i;
  };
  // Two edges share a stretch: q0 and q1 lie on p0-p1's line and the spans overlap.
  constexpr double tolerance = 1e-4;
  const auto share = [&](Vec3 p0, Vec3 p1, Vec3 q0, Vec3 q1) {
    const double len = length(p1 - p0);
    if (len <= kPlaneEpsilon) return false;
    const Vec3 d = (p1 - p0) * (1 / len);
    const auto off_line = [&](Vec3 q) {
      const Vec3 r = q - p0;
      return length(r - d * dot(r, d));
    };
    if (off_line(q0) > tolerance || off_line(q1) > tolerance) return false;
    const double t0 = dot(q0 - p0, d), t1 = dot(q1 - p0, d);
    return std::min(len, std::max(t0, t1)) - std::max(0.0, std::min(t0, t1)) > kPlaneEpsilon;
  };
  for (std::size_t i = 0; i < pieces.size(); ++i)
    for (std::size_t j = i + 1; j < pieces.size(); ++j) {
      if (root(i) == root(j)) continue;
      const auto& a = pieces[i];
      const auto& b = pieces[j];
      bool joined = false;
      for (std::size_t k = 0; k < a.size() && !joined; ++k)
        for (std::size_t l = 0; l < b.size() && !joined; ++l)
          joined = share(a[k], a[(k + 1) % a.size()], b[l], b[(l + 1) % b.size()]);
      if (joined) parent[root(i)] = root(j);
    }
  std::vector<std::size_t> group(pieces.size());
  std::vector<std::size_t> number(pieces.size(), SIZE_MAX);
  std::size_t next = 0;
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    const std::size_t r = root(i);
    if (number[r] == SIZE_MAX) number[r] = next++;
    group[i] = number[r];
  }
  return group;
}

}  // namespace mixforge::quake
