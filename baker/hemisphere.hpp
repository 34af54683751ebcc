#pragma once
// Unit square -> cosine-weighted hemisphere through Shirley and Chiu's concentric disk
// mapping (it keeps strata compact, so a stratum of the square is a solid-angle patch).
#include <cmath>

#include "baker/vec3.hpp"

namespace mixforge::baker {

inline Vec2 concentric_disk(Vec2 u) {
  const float a = 2 * u.x - 1, b = 2 * u.y - 1;
  if (a == 0 && b == 0) return {0, 0};
  constexpr float quarter_pi = 0.78539816339744830962f;
  float r, phi;
  if (std::fabs(a) > std::fabs(b)) {
    r = a;
    phi = quarter_pi * (b / a);
  } else {
    r = b;
    phi = 2 * quarter_pi - quarter_pi * (a / b);
  }
  return {r * std::cos(phi), r * std::sin(phi)};
}

// Local frame: z is the normal. pdf = cos(theta) / pi.
inline Vec3 cosine_hemisphere(Vec2 u) {
  const Vec2 d = concentric_disk(u);
  const float z2 = 1 - d.x * d.x - d.y * d.y;
  return {d.x, d.y, std::sqrt(z2 > 0 ? z2 : 0)};
}

}  // namespace mixforge::baker
