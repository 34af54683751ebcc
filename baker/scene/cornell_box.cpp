#include "baker/scene/cornell_box.hpp"

#include <array>

namespace mixforge::baker {
namespace {

using Quad = std::array<Vec3, 4>;

// Adds a planar quad as two triangles of one face, wound so that the normal points to the
// side `toward` lies on (or away from it when away is true).
void add_quad(Scene& scene, const Quad& q, std::uint32_t material, Vec3 reference, bool away,
              std::int64_t face) {
  const Vec3 n = cross(q[1] - q[0], q[2] - q[0]);
  const Vec3 centre = (q[0] + q[1] + q[2] + q[3]) * 0.25f;
  const bool faces_reference = dot(n, reference - centre) > 0;
  const bool flip = faces_reference == away;
  auto tri = [&](int a, int b, int c) {
    Triangle t;
    t.v[0] = q[a] * 0.01f;
    t.v[1] = flip ? q[c] * 0.01f : q[b] * 0.01f;
    t.v[2] = flip ? q[b] * 0.01f : q[c] * 0.01f;
    t.material = material;
    t.face = face;
    scene.triangles.push_back(t);
  };
  tri(0, 1, 2);
  tri(0, 2, 3);
}

}  // namespace

Scene cornell_box() {
  Scene s;
  s.name = "cornell";
  // Tungsten's cornell-box scene: diffuse reflectances and the light's radiance.
  s.materials = {
      {"white", {0.725f, 0.71f, 0.68f}, {0, 0, 0}},
      {"red", {0.63f, 0.065f, 0.05f}, {0, 0, 0}},
      {"green", {0.14f, 0.45f, 0.091f}, {0, 0, 0}},
      {"light", {0.78f, 0.78f, 0.78f}, {17, 12, 4}},
  };
  enum : std::uint32_t { white, red, green, light };
  const Vec3 inside{278, 274.4f, 279.6f};
  std::int64_t face = 0;
  auto room = [&](const Quad& q, std::uint32_t m) { add_quad(s, q, m, inside, false, face++); };
  // Published room (mm). The light sits 0.1 mm below the ceiling so the two never
  // coincide (the published data puts both at y = 548.8).
  room({{{552.8f, 0, 0}, {0, 0, 0}, {0, 0, 559.2f}, {549.6f, 0, 559.2f}}}, white);  // floor
  room({{{556, 548.8f, 0}, {556, 548.8f, 559.2f}, {0, 548.8f, 559.2f}, {0, 548.8f, 0}}},
       white);  // ceiling
  room({{{549.6f, 0, 559.2f}, {0, 0, 559.2f}, {0, 548.8f, 559.2f}, {556, 548.8f, 559.2f}}},
       white);  // back wall
  room({{{0, 0, 559.2f}, {0, 0, 0}, {0, 548.8f, 0}, {0, 548.8f, 559.2f}}}, green);  // right
  room({{{552.8f, 0, 0}, {549.6f, 0, 559.2f}, {556, 548.8f, 559.2f}, {556, 548.8f, 0}}},
       red);  // left wall
  add_quad(s, {{{343, 548.7f, 227}, {343, 548.7f, 332}, {213, 548.7f, 332}, {213, 548.7f, 227}}},
           light, Vec3{278, 0, 279.5f}, false, face++);

  auto block = [&](const std::array<Quad, 5>& quads) {
    Vec3 c{};
    for (const Quad& q : quads)
      for (const Vec3& v : q) c += v * (1.0f / 20);
    for (const Quad& q : quads) add_quad(s, q, white, c, true, face++);
  };
  block({{{{{130, 165, 65}, {82, 165, 225}, {240, 165, 272}, {290, 165, 114}}},
          {{{290, 0, 114}, {290, 165, 114}, {240, 165, 272}, {240, 0, 272}}},
          {{{130, 0, 65}, {130, 165, 65}, {290, 165, 114}, {290, 0, 114}}},
          {{{82, 0, 225}, {82, 165, 225}, {130, 165, 65}, {130, 0, 65}}},
          {{{240, 0, 272}, {240, 165, 272}, {82, 165, 225}, {82, 0, 225}}}}});  // short block
  block({{{{{423, 330, 247}, {265, 330, 296}, {314, 330, 456}, {472, 330, 406}}},
          {{{423, 0, 247}, {423, 330, 247}, {472, 330, 406}, {472, 0, 406}}},
          {{{472, 0, 406}, {472, 330, 406}, {314, 330, 456}, {314, 0, 456}}},
          {{{314, 0, 456}, {314, 330, 456}, {265, 330, 296}, {265, 0, 296}}},
          {{{265, 0, 296}, {265, 330, 296}, {423, 330, 247}, {423, 0, 247}}}}});  // tall block

  // The published camera: at (278, 273, -800) looking along +z, 35 mm lens, 25 mm film.
  s.camera = Camera{{2.78f, 2.73f, -8.0f}, {2.78f, 2.73f, 0.0f}, {0, 1, 0}, 39.3077f};
  return s;
}

}  // namespace mixforge::baker
