#pragma once
// Scenes far from the origin. The baker traces float positions, whose ulp is 0.0625 at 1e6 and
// 1 at 1e7: a Cornell box (5.6 units across) 1e6 units out lost its light's 1e-3 gap and baked
// 11 % too bright, and 1e7 units out it baked black. So a loader reads positions in double and
// rebases them on an origin near the scene before they become float; Scene::origin keeps that
// origin, and whatever writes positions out (mixforge bake --obj) adds it back. Header-only:
// the Quake adapter uses it without linking scene/.
#include <algorithm>
#include <cmath>

#include "baker/scene/vec3.hpp"

namespace mixforge::baker {

// A position in the units of the scene's file, in double.
struct WorldPoint {
  double x = 0, y = 0, z = 0;
  friend bool operator==(const WorldPoint&, const WorldPoint&) = default;
};

// Axis-aligned bounds of positions in double; empty until the first add.
struct WorldBounds {
  WorldPoint lo{INFINITY, INFINITY, INFINITY}, hi{-INFINITY, -INFINITY, -INFINITY};
  void add(WorldPoint p) {
    lo = {std::min(lo.x, p.x), std::min(lo.y, p.y), std::min(lo.z, p.z)};
    hi = {std::max(hi.x, p.x), std::max(hi.y, p.y), std::max(hi.z, p.z)};
  }
  bool empty() const { return !(lo.x <= hi.x); }
};

// The origin a scene with these bounds is rebased on: the bounds' centre, rounded to a
// multiple of the power of two above the bounds' longest side. Rounded, so that a scene lying
// about the origin keeps origin 0 and every position as its file gave it (the Cornell box,
// Quake maps: their bakes do not change), and positions on a grid coarser than that power
// (Quake's integers) move exactly; the rebased positions are still within about one such
// power of two of 0, as precise as the centre would make them but for a bit or two.
inline WorldPoint rebase_origin(const WorldBounds& b) {
  if (b.empty()) return {};
  const double side = std::max({b.hi.x - b.lo.x, b.hi.y - b.lo.y, b.hi.z - b.lo.z});
  int exponent = 0;
  std::frexp(side, &exponent);  // side < 2^exponent (0 for a single point: step 1)
  const double step = std::ldexp(1.0, exponent);
  // + 0.0: -0 (a centre just below 0) is 0.
  const auto snap = [&](double lo, double hi) { return std::round((lo + (hi - lo) / 2) / step) * step + 0.0; };
  return {snap(b.lo.x, b.hi.x), snap(b.lo.y, b.hi.y), snap(b.lo.z, b.hi.z)};
}

// p relative to origin, rounded to float once (the subtraction is in double).
inline Vec3 to_local(WorldPoint p, WorldPoint origin) {
  return {static_cast<float>(p.x - origin.x), static_cast<float>(p.y - origin.y), static_cast<float>(p.z - origin.z)};
}

// A rebased position back in the file's units.
inline WorldPoint to_world(Vec3 v, WorldPoint origin) {
  return {origin.x + double(v.x), origin.y + double(v.y), origin.z + double(v.z)};
}

}  // namespace mixforge::baker
