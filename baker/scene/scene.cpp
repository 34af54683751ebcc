#include "baker/scene/scene.hpp"

#include <cmath>
#include <string>

namespace mixforge::baker {
namespace {

bool finite(Vec3 v) { return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z); }

std::string str(Vec3 v) {
  return "(" + std::to_string(v.x) + ", " + std::to_string(v.y) + ", " + std::to_string(v.z) + ")";
}

}  // namespace

void validate(const Scene& scene) {
  if (scene.triangles.empty()) throw SceneError("scene '" + scene.name + "' has no triangles");
  for (std::size_t i = 0; i < scene.materials.size(); ++i) {
    const Material& m = scene.materials[i];
    const std::string where = "material " + std::to_string(i) + " ('" + m.name + "')";
    if (!finite(m.albedo) || !finite(m.emission))
      throw SceneError(where + ": non-finite albedo or emission");
    for (int c = 0; c < 3; ++c) {
      if (m.albedo[c] < 0 || m.albedo[c] >= 1)
        throw SceneError(where + ": albedo " + str(m.albedo) + " outside [0, 1)");
      if (m.emission[c] < 0) throw SceneError(where + ": negative emission " + str(m.emission));
    }
  }
  for (std::size_t i = 0; i < scene.triangles.size(); ++i) {
    const Triangle& t = scene.triangles[i];
    const std::string where = "triangle " + std::to_string(i);
    if (t.material >= scene.materials.size())
      throw SceneError(where + ": material index " + std::to_string(t.material) +
                       " but the scene has " + std::to_string(scene.materials.size()));
    for (const Vec3& v : t.v)
      if (!finite(v)) throw SceneError(where + ": non-finite vertex " + str(v));
  }
  for (std::size_t i = 0; i < scene.lights.size(); ++i) {
    const Light& l = scene.lights[i];
    const std::string where = "light " + std::to_string(i);
    if (!finite(l.position) || !finite(l.direction) || !finite(l.intensity))
      throw SceneError(where + ": non-finite position, direction or intensity");
    if (l.intensity.x < 0 || l.intensity.y < 0 || l.intensity.z < 0)
      throw SceneError(where + ": negative intensity " + str(l.intensity));
    if ((l.kind == LightKind::spot || l.kind == LightKind::sun) && length(l.direction) == 0)
      throw SceneError(where + ": zero direction");
    if (l.kind == LightKind::spot && !(l.cone_outer < l.cone_inner))
      throw SceneError(where + ": spot cone cosines must satisfy outer < inner");
  }
}

Bounds bounds(const Scene& scene) {
  Bounds b{{INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}};
  for (const Triangle& t : scene.triangles)
    for (const Vec3& v : t.v)
      for (int c = 0; c < 3; ++c) {
        b.lo[c] = std::fmin(b.lo[c], v[c]);
        b.hi[c] = std::fmax(b.hi[c], v[c]);
      }
  return b;
}

}  // namespace mixforge::baker
