#include "baker/obj_scene.hpp"

#include <tiny_obj_loader.h>

#include <cmath>
#include <fstream>
#include <regex>
#include <sstream>

namespace mixforge::baker {
namespace {

// tinyobjloader reports problems as text, some with "line N"; turn them into file:line.
std::string located(const std::filesystem::path& path, const std::string& message) {
  std::string text = message;
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  static const std::regex line_re(R"(line (\d+))");
  std::smatch m;
  if (std::regex_search(text, m, line_re)) return path.string() + ":" + m[1].str() + ": " + text;
  return path.string() + ": " + text;
}

Vec3 vec(const tinyobj::real_t* a) { return {a[0], a[1], a[2]}; }

}  // namespace

Scene load_obj(const std::filesystem::path& path) {
  std::ifstream probe(path);
  if (!probe) throw SceneError(path.string() + ": cannot open");
  tinyobj::ObjReaderConfig config;
  config.triangulate = false;
  config.mtl_search_path = path.parent_path().string();
  tinyobj::ObjReader reader;
  if (!reader.ParseFromFile(path.string(), config))
    throw SceneError(located(path, reader.Error().empty() ? "cannot parse" : reader.Error()));
  // Warnings that mean lost data (a missing material file) are errors for a bake.
  if (!reader.Warning().empty() && reader.Warning().find("Material") != std::string::npos)
    throw SceneError(located(path, reader.Warning()));

  Scene scene;
  scene.name = path.stem().string();
  const auto& attrib = reader.GetAttrib();
  const auto& materials = reader.GetMaterials();
  for (const auto& m : materials) {
    Material mat;
    mat.name = m.name;
    mat.albedo = vec(m.diffuse);
    mat.emission = vec(m.emission);
    for (int c = 0; c < 3; ++c)
      if (mat.albedo[c] >= 1) mat.albedo[c] = 0.999f;  // energy conservation: < 1
    scene.materials.push_back(mat);
  }
  const std::uint32_t grey = static_cast<std::uint32_t>(scene.materials.size());
  scene.materials.push_back({"default", {0.5f, 0.5f, 0.5f}, {0, 0, 0}});

  const std::size_t nv = attrib.vertices.size() / 3;
  std::int64_t face_id = 0;
  for (const auto& shape : reader.GetShapes()) {
    std::size_t offset = 0;
    for (std::size_t f = 0; f < shape.mesh.num_face_vertices.size(); ++f) {
      const std::size_t count = shape.mesh.num_face_vertices[f];
      const int mat = shape.mesh.material_ids.empty() ? -1 : shape.mesh.material_ids[f];
      std::vector<Vec3> poly;
      for (std::size_t k = 0; k < count; ++k) {
        const int vi = shape.mesh.indices[offset + k].vertex_index;
        if (vi < 0 || std::size_t(vi) >= nv)
          throw SceneError(path.string() + ": shape '" + shape.name + "' face " + std::to_string(f + 1) +
                           ": vertex index out of range");
        poly.push_back(vec(&attrib.vertices[3 * std::size_t(vi)]));
      }
      offset += count;
      for (std::size_t k = 1; k + 1 < poly.size(); ++k) {
        Triangle t;
        t.v[0] = poly[0];
        t.v[1] = poly[k];
        t.v[2] = poly[k + 1];
        t.material = mat >= 0 && std::size_t(mat) < materials.size() ? std::uint32_t(mat) : grey;
        t.face = face_id;
        if (length(cross(t.v[1] - t.v[0], t.v[2] - t.v[0])) > 0) scene.triangles.push_back(t);
      }
      ++face_id;
    }
  }
  if (scene.triangles.empty()) throw SceneError(path.string() + ": no faces with area");
  try {
    validate(scene);
  } catch (const SceneError& e) {
    throw SceneError(path.string() + ": " + e.what());
  }
  return scene;
}

}  // namespace mixforge::baker
