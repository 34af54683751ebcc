// GLSL twin of baker/sampling/hemisphere.hpp and baker/scene/vec3.hpp's Frame: the same float operations in
// the same order, `precise` so that no compiler fuses or reorders them, which makes the
// directions bit-identical to the C++ (compiled with -ffp-contract=off) on an IEEE device
// such as lavapipe. sin/cos are the shared polynomial, not the driver's built-ins.

// sin and cos of x in [-pi/4, pi/4] (Cephes' sinf/cosf polynomials): returns (cos, sin).
vec2 mixforge_sincos_quarter(float x) {
  precise float z = x * x;
  precise float s = ((-1.9515295891e-4 * z + 8.3321608736e-3) * z - 1.6666654611e-1) * z * x + x;
  precise float c = ((2.443315711809948e-5 * z - 1.388731625493765e-3) * z + 4.166664568298827e-2) * z * z -
                    0.5 * z + 1.0;
  return vec2(c, s);
}

// Shirley and Chiu's concentric mapping of the unit square to the unit disk.
vec2 mixforge_concentric_disk(vec2 u) {
  precise float a = 2.0 * u.x - 1.0;
  precise float b = 2.0 * u.y - 1.0;
  if (a == 0.0 && b == 0.0) return vec2(0.0);
  const float quarter_pi = 0.78539816339744830962;
  precise float r;
  precise vec2 cs;
  if (abs(a) > abs(b)) {
    r = a;
    cs = mixforge_sincos_quarter(quarter_pi * (b / a));
  } else {
    // phi = pi/2 - x: cos(phi) = sin(x), sin(phi) = cos(x)
    r = b;
    cs = mixforge_sincos_quarter(quarter_pi * (a / b)).yx;
  }
  precise vec2 d = vec2(r * cs.x, r * cs.y);
  return d;
}

// Cosine-weighted hemisphere around +z (pdf cos(theta) / pi).
vec3 mixforge_cosine_hemisphere(vec2 u) {
  precise vec2 d = mixforge_concentric_disk(u);
  precise float z2 = 1.0 - d.x * d.x - d.y * d.y;
  precise float z = sqrt(z2 > 0.0 ? z2 : 0.0);
  return vec3(d.x, d.y, z);
}

// Duff et al.'s orthonormal basis around n (baker/scene/vec3.hpp Frame), local -> world.
vec3 mixforge_to_world(vec3 n, vec3 v) {
  // copysign(1, n.z), -0.0 included
  precise float sign = uintBitsToFloat((floatBitsToUint(n.z) & 0x80000000u) | 0x3f800000u);
  precise float a = -1.0 / (sign + n.z);
  precise float c = n.x * n.y * a;
  precise vec3 t = vec3(1.0 + sign * n.x * n.x * a, sign * c, -sign * n.x);
  precise vec3 b = vec3(c, sign + n.y * n.y * a, -n.y);
  precise vec3 w = vec3(t.x * v.x + b.x * v.y + n.x * v.z,
                        t.y * v.x + b.y * v.y + n.y * v.z,
                        t.z * v.x + b.z * v.y + n.z * v.z);
  return w;
}
