#include "baker/integrate/obj_export.hpp"

#include <charconv>
#include <cstdio>
#include <fstream>
#include <string>

#include "baker/integrate/image_io.hpp"

namespace mixforge::baker {
namespace {

std::string num(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

std::string vec(Vec3 v) { return num(v.x) + " " + num(v.y) + " " + num(v.z); }

// A position where the scene's file had it: Scene::origin added back. About the origin, the
// float's 9 digits; else the double sum's shortest text (9 digits of 1e7 would lose the
// scene), which reads back as the same double and so as the same float once rebased again.
std::string position(Vec3 v, WorldPoint origin) {
  if (origin == WorldPoint{}) return vec(v);
  const WorldPoint w = to_world(v, origin);
  std::string out;
  for (const double c : {w.x, w.y, w.z}) {
    char buf[32];
    const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, c);
    out += (out.empty() ? "" : " ") + std::string(buf, end);
  }
  return out;
}

const char* kind_name(LightKind k) {
  switch (k) {
    case LightKind::point: return "point";
    case LightKind::spot: return "spot";
    case LightKind::sun: return "sun";
    case LightKind::sky: return "sky";
  }
  return "point";
}

// Material names in .mtl are single tokens: anything but [A-Za-z0-9_.-] becomes '_', and the
// index keeps two materials apart.
std::string mtl_name(const Material& m, std::size_t index) {
  std::string s = "m" + std::to_string(index) + "_";
  for (char c : m.name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '.' || c == '-';
    s += ok ? c : '_';
  }
  return s;
}

}  // namespace

void write_obj(const Scene& scene, const Atlas& atlas, const std::filesystem::path& dir) {
  const auto obj_path = dir / "lightmap.obj", mtl_path = dir / "lightmap.mtl";
  {
    std::ofstream mtl(mtl_path);
    mtl << "# mixforge bake --obj: the materials of " << scene.name << "\n";
    for (std::size_t i = 0; i < scene.materials.size(); ++i) {
      const Material& m = scene.materials[i];
      mtl << "newmtl " << mtl_name(m, i) << "\n"
          << "Kd " << vec(m.albedo) << "\n"
          << "Ke " << vec(m.emission) << "\n";
      if (m.two_sided) mtl << "mixforge_two_sided 1\n";
      if (m.sky) mtl << "# mixforge_sky 1\n";
    }
    if (!mtl) throw ImageError("cannot write " + mtl_path.string());
  }
  std::ofstream obj(obj_path);
  obj << "# mixforge bake --obj: " << scene.name << ", " << scene.triangles.size()
      << " triangles; vt: lightmap.exr's atlas (" << atlas.width << " x " << atlas.height
      << " texels of " << num(atlas.options.texel_size) << " units), v up\n"
      << "mtllib lightmap.mtl\n";
  for (const Light& l : scene.lights) {
    obj << "# mixforge_light " << kind_name(l.kind) << " position " << position(l.position, scene.origin)
        << " direction " << vec(l.direction) << " intensity " << vec(l.intensity) << " cone " << num(l.cone_inner)
        << " " << num(l.cone_outer) << " range " << num(l.range) << "\n";
  }
  const double w = atlas.width, h = atlas.height;
  for (std::size_t i = 0; i < scene.triangles.size(); ++i) {
    const Triangle& t = scene.triangles[i];
    for (const Vec3& v : t.v) obj << "v " << position(v, scene.origin) << "\n";
    for (const Vec2& uv : atlas.triangle_uv[i]) obj << "vt " << num(uv.x / w) << " " << num(1 - uv.y / h) << "\n";
  }
  std::int64_t group = 0;
  std::uint32_t material = ~0u;
  for (std::size_t i = 0; i < scene.triangles.size(); ++i) {
    const Triangle& t = scene.triangles[i];
    const std::int64_t g = t.face >= 0 ? t.face : -1 - static_cast<std::int64_t>(i);
    if (i == 0 || g != group) obj << "g face_" << g << "\n";
    group = g;
    if (t.material != material) obj << "usemtl " << mtl_name(scene.materials[t.material], t.material) << "\n";
    material = t.material;
    const std::size_t k = 3 * i + 1;
    obj << "f " << k << "/" << k << " " << k + 1 << "/" << k + 1 << " " << k + 2 << "/" << k + 2 << "\n";
  }
  if (!obj) throw ImageError("cannot write " + obj_path.string());
}

}  // namespace mixforge::baker
