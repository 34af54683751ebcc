#pragma once
// The baker's scene: triangles with a material each, materials (albedo, emitted radiance),
// and analytic lights. Every scene source (built-in Cornell box, OBJ, Quake .map) produces
// this type; the baker knows nothing else about where a scene came from.
#include <array>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "baker/scene/rebase.hpp"
#include "baker/scene/vec3.hpp"

namespace mixforge::baker {

struct Material {
  std::string name;
  Vec3 albedo{0.5f, 0.5f, 0.5f};  // diffuse reflectance, each channel in [0, 1)
  Vec3 emission{0, 0, 0};         // emitted radiance (W sr^-1 m^-2 per channel)
  // A window onto the sky (Quake's sky faces): a ray that hits it has reached the sky, as one
  // that hits nothing: a hemisphere ray gathers the sky dome there, a sun's shadow ray is
  // unblocked (nothing beyond it casts a shadow); point, spot and emitter shadow rays are
  // blocked by it as by any surface. It gets no texels.
  bool sky = false;
  // Both sides receive light: its triangles get a second chart for their back (the normal
  // flipped), and a ray that hits one from behind reads that back chart. A one-sided
  // material has texels on its front only; a ray that hits it from behind gathers black.
  // Emission leaves the front only, either way. OBJ: the .mtl line `mixforge_two_sided 1`
  // (or mixforge bake --two-sided for every material).
  bool two_sided = false;
};

// Vertices in counter-clockwise order seen from the side the normal points to; that side
// is the one that receives light. uv2: the lightmap UVs of a mesh's second UV set, used
// as the chart layout when every triangle of the scene has them.
struct Triangle {
  Vec3 v[3];
  std::uint32_t material = 0;
  std::optional<std::array<Vec2, 3>> uv2;
  // Triangles of one planar face (a Quake brush side, an OBJ quad) share a face id, so
  // they share one chart; -1: the triangle is its own face.
  std::int64_t face = -1;
};

enum class LightKind : std::uint8_t { point, spot, sun, sky };

// Analytic lights. Emissive surfaces are materials with emission, not Light entries.
struct Light {
  LightKind kind = LightKind::point;
  Vec3 position{};      // point, spot
  Vec3 direction{};     // spot: the cone axis; sun: the direction the light travels
  Vec3 intensity{};     // point/spot: W/sr per channel; sun: irradiance at normal
                        // incidence; sky: radiance of the uniform dome
  float cone_inner = 0;  // spot: cosines of the full- and zero-intensity half angles
  float cone_outer = 0;
  // Point/spot falloff: 0 = inverse square (physical); Quake's linear falloff is mapped
  // to this by the .map adapter. Range limit (0 = unlimited).
  float range = 0;
};

// A camera for the preview image.
struct Camera {
  Vec3 position{0, 0, 5};
  Vec3 target{0, 0, 0};
  Vec3 up{0, 1, 0};
  float vertical_fov_degrees = 40;
};

struct Scene {
  std::string name;
  std::vector<Material> materials;
  std::vector<Triangle> triangles;
  std::vector<Light> lights;
  std::optional<Camera> camera;
  // Where the positions above (triangles, lights, camera) have their 0 in the scene's file:
  // a loader rebases a scene far from the origin (rebase.hpp), and writers of positions add
  // this back. 0 for the built-in Cornell box and for scenes that lie about the origin.
  WorldPoint origin{};
};

// A scene that cannot be baked; what() names the problem (and file:line when read).
class SceneError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Checks indices, finite coordinates, albedo in [0, 1) and non-negative emission; throws
// SceneError naming the first offending triangle, material or light.
void validate(const Scene& scene);

// Axis-aligned bounds of every triangle vertex.
struct Bounds {
  Vec3 lo{}, hi{};
  float diagonal() const { return length(hi - lo); }
};
Bounds bounds(const Scene& scene);

}  // namespace mixforge::baker
