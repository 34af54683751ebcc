#include "baker/scene/obj_scene.hpp"

#include <tiny_obj_loader.h>

#include <charconv>
#include <cmath>
#include <limits>
#include <string_view>
#include <vector>
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

// tinyobjloader reads a malformed number as 0 and an index it cannot convert as whatever
// its parser made of it, without a word; so the file is scanned first, and the first
// problem is reported as file:line:column (columns count bytes from 1).
class LineScanner {
 public:
  LineScanner(const std::filesystem::path& path, std::string_view line, std::size_t number)
      : path_(path), line_(line), number_(number) {
    if (const auto hash = line_.find('#'); hash != std::string_view::npos) line_ = line_.substr(0, hash);
    while (!line_.empty() && (line_.back() == '\r' || line_.back() == ' ' || line_.back() == '\t'))
      line_.remove_suffix(1);
  }

  // The next whitespace-separated token and its column, or an empty token at the end.
  bool next(std::string_view& token, std::size_t& column) {
    while (pos_ < line_.size() && (line_[pos_] == ' ' || line_[pos_] == '\t')) ++pos_;
    if (pos_ >= line_.size()) return false;
    const std::size_t start = pos_;
    while (pos_ < line_.size() && line_[pos_] != ' ' && line_[pos_] != '\t') ++pos_;
    token = line_.substr(start, pos_ - start);
    column = start + 1;
    return true;
  }

  [[noreturn]] void fail(std::size_t column, const std::string& message) const {
    throw SceneError(path_.string() + ":" + std::to_string(number_) + ":" + std::to_string(column) + ": " +
                     message);
  }

  // A finite number that fits a float (tinyobjloader stores floats: 1e39 would be inf).
  double number(std::string_view token, std::size_t column, const char* what) const {
    std::string_view t = token;
    if (t.size() > 1 && t[0] == '+') t.remove_prefix(1);  // from_chars takes no '+'
    double v = 0;
    const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (ec == std::errc::result_out_of_range && end == t.data() + t.size())
      fail(column, std::string(what) + " '" + std::string(token) + "' is out of range");
    if (ec != std::errc() || end != t.data() + t.size())
      fail(column, std::string(what) + " '" + std::string(token) + "' is not a number");
    if (!std::isfinite(v)) fail(column, std::string(what) + " '" + std::string(token) + "' is not finite");
    if (std::fabs(v) > std::numeric_limits<float>::max())
      fail(column, std::string(what) + " '" + std::string(token) + "' is out of the float range");
    return v;
  }

 private:
  const std::filesystem::path& path_;
  std::string_view line_;
  std::size_t number_;
  std::size_t pos_ = 0;
};

std::vector<std::string_view> split_lines(const std::string& text) {
  std::vector<std::string_view> lines;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = text.find('\n', start);
    if (end == std::string::npos) {
      if (start < text.size()) lines.emplace_back(text.data() + start, text.size() - start);
      break;
    }
    lines.emplace_back(text.data() + start, end - start);
    start = end + 1;
  }
  return lines;
}

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw SceneError(path.string() + ": cannot open");
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The .mtl key of a two-sided material (Material::two_sided): `mixforge_two_sided 1` (or 0).
// Other tools keep an unknown key or ignore it.
constexpr std::string_view kTwoSidedKey = "mixforge_two_sided";

// What the baker reads: the colours (Kd albedo, Ke emission: three finite numbers) and
// mixforge_two_sided (0 or 1, once per material).
void check_mtl(const std::filesystem::path& path) {
  const std::string text = read_text(path);
  const auto lines = split_lines(text);
  std::size_t two_sided_line = 0;  // where the current material said it, 0: not yet
  for (std::size_t i = 0; i < lines.size(); ++i) {
    LineScanner s(path, lines[i], i + 1);
    std::string_view key, token;
    std::size_t column = 0, key_column = 0;
    if (!s.next(key, key_column)) continue;
    if (key == "newmtl") two_sided_line = 0;
    if (key == kTwoSidedKey) {
      if (two_sided_line)
        s.fail(key_column, std::string(kTwoSidedKey) + " given twice for one material (first on line " +
                               std::to_string(two_sided_line) + ")");
      two_sided_line = i + 1;
      if (!s.next(token, column)) s.fail(key_column, std::string(kTwoSidedKey) + " takes 0 or 1, got nothing");
      if (token != "0" && token != "1")
        s.fail(column, std::string(kTwoSidedKey) + " takes 0 or 1, got '" + std::string(token) + "'");
      if (s.next(token, column)) s.fail(column, std::string(kTwoSidedKey) + " takes one value (0 or 1), got more");
      continue;
    }
    if (key != "Kd" && key != "Ke") continue;
    int count = 0;
    while (s.next(token, column)) {
      if (++count > 3) s.fail(column, std::string(key) + " takes 3 numbers (r g b), got more");
      s.number(token, column, key == "Kd" ? "Kd component" : "Ke component");
    }
    if (count < 3)
      s.fail(key_column, std::string(key) + " takes 3 numbers (r g b), got " + std::to_string(count));
  }
}

// The OBJ statements the baker uses: v (3 coordinates, an optional w or r g b), vt, vn,
// f (3 or more v, v/vt, v//vn or v/vt/vn; indices from 1, or negative: relative), mtllib.
// Returns every v's position in double, in the file's order (tinyobjloader's are floats, which
// lose a scene far from the origin before it can be rebased).
std::vector<WorldPoint> check_obj(const std::filesystem::path& path) {
  const std::string text = read_text(path);
  const auto lines = split_lines(text);
  // Positive indices may name elements defined further down; negative ones count back
  // from the statement.
  std::size_t total[3] = {0, 0, 0};  // v, vt, vn
  for (std::string_view line : lines) {
    LineScanner s(path, line, 0);
    std::string_view key;
    std::size_t column = 0;
    if (!s.next(key, column)) continue;
    total[0] += key == "v";
    total[1] += key == "vt";
    total[2] += key == "vn";
  }
  std::size_t seen[3] = {0, 0, 0};
  std::vector<WorldPoint> positions;
  positions.reserve(total[0]);
  static constexpr const char* element[3] = {"vertex", "texture coordinate", "normal"};
  for (std::size_t i = 0; i < lines.size(); ++i) {
    LineScanner s(path, lines[i], i + 1);
    std::string_view key, token;
    std::size_t column = 0, key_column = 0;
    if (!s.next(key, key_column)) continue;
    if (key == "v" || key == "vt" || key == "vn") {
      const int min = key == "vt" ? 1 : 3, max = key == "v" ? 7 : 3;
      int count = 0;
      double xyz[3] = {0, 0, 0};
      while (s.next(token, column)) {
        if (++count > max) s.fail(column, std::string(key) + " takes at most " + std::to_string(max) + " numbers");
        const double v = s.number(token, column, "coordinate");
        if (count <= 3) xyz[count - 1] = v;
      }
      if (count < min)
        s.fail(key_column, std::string(key) + " needs " + std::to_string(min) + " coordinates, got " +
                               std::to_string(count));
      if (key == "v") positions.push_back({xyz[0], xyz[1], xyz[2]});
      ++seen[key == "v" ? 0 : key == "vt" ? 1 : 2];
    } else if (key == "f") {
      int corners = 0;
      while (s.next(token, column)) {
        ++corners;
        // Up to three '/'-separated indices: v, vt (may be empty in v//vn), vn.
        std::size_t part = 0, start = 0;
        while (true) {
          const std::size_t slash = token.find('/', start);
          const std::string_view idx = token.substr(start, slash == std::string_view::npos ? token.npos : slash - start);
          const std::size_t col = column + start;
          if (part > 2) s.fail(col, "face corner '" + std::string(token) + "' has more than 3 indices");
          if (idx.empty()) {
            if (part != 1 || slash == std::string_view::npos)  // only vt may be left out, as in v//vn
              s.fail(col, "face corner '" + std::string(token) + "' lacks its " + element[part] + " index");
          } else {
            long long v = 0;
            const auto [end, ec] = std::from_chars(idx.data(), idx.data() + idx.size(), v);
            if (ec == std::errc::result_out_of_range)
              s.fail(col, std::string(element[part]) + " index " + std::string(idx) + " is out of range (" +
                              std::to_string(total[part]) + " in the file)");
            if (ec != std::errc() || end != idx.data() + idx.size())
              s.fail(col, "face corner '" + std::string(token) + "': '" + std::string(idx) + "' is not an index");
            if (v == 0) s.fail(col, std::string(element[part]) + " index 0 (OBJ indices start at 1)");
            if ((v > 0 && static_cast<unsigned long long>(v) > total[part]) ||
                (v < 0 && static_cast<unsigned long long>(-(v + 1)) + 1 > seen[part]))
              s.fail(col, std::string(element[part]) + " index " + std::string(idx) + " is out of range (" +
                              std::to_string(v > 0 ? total[part] : seen[part]) +
                              (v > 0 ? " in the file)" : " defined above it)"));
          }
          ++part;
          if (slash == std::string_view::npos) break;
          start = slash + 1;
        }
      }
      if (corners < 3)
        s.fail(key_column, "a face needs at least 3 vertices, got " + std::to_string(corners));
    } else if (key == "mtllib") {
      while (s.next(token, column)) {
        const std::filesystem::path mtl = path.parent_path() / std::string(token);
        std::error_code ec;
        if (std::filesystem::is_regular_file(mtl, ec)) check_mtl(mtl);  // a missing one: tinyobjloader's warning
      }
    }
  }
  return positions;
}

}  // namespace

Scene load_obj(const std::filesystem::path& path) {
  const std::vector<WorldPoint> positions =
      check_obj(path);  // throws "file:line:column: ..." (and "file: cannot open")
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
    // tinyobjloader keeps the rest of the line after the key (check_mtl checked it: 0 or 1,
    // perhaps followed by a comment).
    if (const auto it = m.unknown_parameter.find(std::string(kTwoSidedKey)); it != m.unknown_parameter.end()) {
      const auto first = it->second.find_first_not_of(" \t");
      mat.two_sided = first != std::string::npos && it->second[first] == '1';
    }
    for (int c = 0; c < 3; ++c)
      if (mat.albedo[c] >= 1) mat.albedo[c] = 0.999f;  // energy conservation: < 1
    scene.materials.push_back(mat);
  }
  const std::uint32_t grey = static_cast<std::uint32_t>(scene.materials.size());
  scene.materials.push_back({"default", {0.5f, 0.5f, 0.5f}, {0, 0, 0}});

  // Faces in double first: the scene is rebased on their bounds before positions become float.
  struct Polygon {
    std::vector<std::size_t> corners;  // indices into positions
    std::uint32_t material;
  };
  std::vector<Polygon> polygons;
  WorldBounds world;
  const std::size_t nv = std::min(attrib.vertices.size() / 3, positions.size());
  for (const auto& shape : reader.GetShapes()) {
    std::size_t offset = 0;
    for (std::size_t f = 0; f < shape.mesh.num_face_vertices.size(); ++f) {
      const std::size_t count = shape.mesh.num_face_vertices[f];
      const int mat = shape.mesh.material_ids.empty() ? -1 : shape.mesh.material_ids[f];
      Polygon poly{{}, mat >= 0 && std::size_t(mat) < materials.size() ? std::uint32_t(mat) : grey};
      for (std::size_t k = 0; k < count; ++k) {
        const int vi = shape.mesh.indices[offset + k].vertex_index;
        if (vi < 0 || std::size_t(vi) >= nv)
          throw SceneError(path.string() + ": shape '" + shape.name + "' face " + std::to_string(f + 1) +
                           ": vertex index out of range");
        poly.corners.push_back(std::size_t(vi));
        world.add(positions[std::size_t(vi)]);
      }
      offset += count;
      polygons.push_back(std::move(poly));
    }
  }
  scene.origin = rebase_origin(world);
  std::int64_t face_id = 0;
  for (const Polygon& poly : polygons) {
    const auto at = [&](std::size_t k) { return to_local(positions[poly.corners[k]], scene.origin); };
    for (std::size_t k = 1; k + 1 < poly.corners.size(); ++k) {
      Triangle t;
      t.v[0] = at(0);
      t.v[1] = at(k);
      t.v[2] = at(k + 1);
      t.material = poly.material;
      t.face = face_id;
      if (length(cross(t.v[1] - t.v[0], t.v[2] - t.v[0])) > 0) scene.triangles.push_back(t);
    }
    ++face_id;
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
