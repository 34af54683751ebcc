#pragma once
// Unit square -> cosine-weighted hemisphere through Shirley and Chiu's concentric disk
// mapping (it keeps strata compact, so a stratum of the square is a solid-angle patch).
#include <cmath>

#include "baker/scene/vec3.hpp"

namespace mixforge::baker {

// sin and cos of x in [-pi/4, pi/4] (Cephes' sinf/cosf polynomials, about 1 ulp there),
// returned as (cos, sin). Not std::sin/std::cos: GLSL's built-ins are only required to be
// within 2^-11 (Vulkan's precision rules) and are not libm's, while the Vulkan back end
// computes the same directions in GLSL (baker/trace/shaders/hemisphere.glsl, the same operations
// in the same order) bit for bit.
inline Vec2 sincos_quarter(float x) {
  const float z = x * x;
  const float s = ((-1.9515295891e-4f * z + 8.3321608736e-3f) * z - 1.6666654611e-1f) * z * x + x;
  const float c = ((2.443315711809948e-5f * z - 1.388731625493765e-3f) * z + 4.166664568298827e-2f) * z * z -
                  0.5f * z + 1.0f;
  return {c, s};
}

inline Vec2 concentric_disk(Vec2 u) {
  const float a = 2 * u.x - 1, b = 2 * u.y - 1;
  if (a == 0 && b == 0) return {0, 0};
  constexpr float quarter_pi = 0.78539816339744830962f;
  if (std::fabs(a) > std::fabs(b)) {
    const Vec2 cs = sincos_quarter(quarter_pi * (b / a));  // phi = x
    return {a * cs.x, a * cs.y};
  }
  const Vec2 cs = sincos_quarter(quarter_pi * (a / b));  // phi = pi/2 - x
  return {b * cs.y, b * cs.x};
}

// Local frame: z is the normal. pdf = cos(theta) / pi.
inline Vec3 cosine_hemisphere(Vec2 u) {
  const Vec2 d = concentric_disk(u);
  const float z2 = 1 - d.x * d.x - d.y * d.y;
  return {d.x, d.y, std::sqrt(z2 > 0 ? z2 : 0)};
}

}  // namespace mixforge::baker
