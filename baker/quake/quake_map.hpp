// Quake 1 .map source files: the text format TrenchBroom, J.A.C.K. and id's QuakeEd write.
//
// Grammar (whitespace-separated; `//` starts a comment that runs to the end of the line):
//   map    := entity*
//   entity := '{' ( "key" "value" | brush )* '}'
//   brush  := '{' face+ '}'
//   face   := '(' x y z ')' '(' x y z ')' '(' x y z ')' TEXTURE projection
//   projection (standard, id):   xoff yoff rotation xscale yscale
//   projection (Valve 220):      '[' ux uy uz uoff ']' '[' vx vy vz voff ']' rotation xscale yscale
// Both projections are accepted on any face (the format is detected per face, not from
// "mapversion"); up to three trailing integers on the same line (Quake 2 / Hexen 2 surface
// flags) are accepted and ignored. Quake 3 patches (patchDef2/3) and brushDef/brushDef3
// blocks are rejected with an error rather than skipped: dropping geometry silently would
// bake wrong shadows.
//
// Every error is a MapError whose message starts with `file:line:column:` (1-based; columns
// count Unicode code points). The input must be valid UTF-8 without control characters.
// Numbers must be finite; coordinates must lie within +-kMaxCoordinate.
#pragma once

#include <array>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace mixforge::quake {

struct Vec3 {
  double x = 0, y = 0, z = 0;
  friend Vec3 operator+(Vec3 a, Vec3 b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
  friend Vec3 operator-(Vec3 a, Vec3 b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
  friend Vec3 operator*(Vec3 a, double s) { return {a.x * s, a.y * s, a.z * s}; }
  friend Vec3 operator*(double s, Vec3 a) { return a * s; }
  friend bool operator==(Vec3, Vec3) = default;
};
double dot(Vec3 a, Vec3 b);
Vec3 cross(Vec3 a, Vec3 b);
double length(Vec3 a);
Vec3 normalize(Vec3 a);  // a / |a|; the zero vector stays zero

// Coordinates beyond this are rejected (vanilla Quake's world is +-4096, BSP2 +-32768).
inline constexpr double kMaxCoordinate = 1 << 20;

struct Location {
  int line = 0;
  int column = 0;
};

// A problem in a map file, located. what() is "file:line:column: message".
class MapError : public std::runtime_error {
 public:
  MapError(const std::string& file, Location where, const std::string& message);
  const std::string& file() const { return file_; }
  Location where() const { return where_; }
  const std::string& message() const { return message_; }

 private:
  std::string file_;
  Location where_;
  std::string message_;
};

// uv(p) = (dot(p, s) + s_offset, dot(p, t) + t_offset), in texels of the face's texture
// (qbsp's texinfo vecs: the scale is already folded into s and t).
struct TextureProjection {
  Vec3 s;
  double s_offset = 0;
  Vec3 t;
  double t_offset = 0;
};

enum class FaceFormat { standard, valve220 };

struct FaceDef {
  // The plane through the three points; the brush is on the side where
  // dot(normal, x) <= distance, with normal = normalize((p0 - p1) x (p2 - p1)) (qbsp).
  std::array<Vec3, 3> points;
  std::string texture;
  FaceFormat format = FaceFormat::standard;
  Vec3 u_axis, v_axis;  // Valve 220 only
  double u_offset = 0, v_offset = 0, rotation = 0, u_scale = 1, v_scale = 1;
  Location where;  // the first '('

  Vec3 normal() const;      // outward unit normal
  double distance() const;  // dot(normal, points[1])
  // The texture projection exactly as qbsp computes it (standard: Quake's base-axis table
  // rotated by `rotation`; Valve 220: the given axes). A zero scale counts as 1.
  TextureProjection projection() const;
};

struct BrushDef {
  std::vector<FaceDef> faces;
  Location where;  // the '{'
};

struct KeyValue {
  std::string key, value;
  Location key_at, value_at;
};

struct Entity {
  std::vector<KeyValue> pairs;  // in file order; a later duplicate key wins (as in Quake)
  std::vector<BrushDef> brushes;
  Location where;  // the '{'

  const KeyValue* find(std::string_view key) const;  // last pair with this exact key
  std::string value(std::string_view key, std::string_view fallback = "") const;
  std::string classname() const { return value("classname"); }
};

struct QuakeMap {
  std::string file;  // the name errors carry
  std::vector<Entity> entities;

  // The first entity when its classname is "worldspawn" (qbsp requires it first), else null.
  const Entity* worldspawn() const;
  std::size_t brush_count() const;
  std::size_t face_count() const;
};

// `file` is only the name used in messages.
QuakeMap parse_quake_map(std::string_view text, std::string file);
// Reads and parses; messages carry the file name (not its directory).
QuakeMap read_quake_map(const std::filesystem::path& path);

}  // namespace mixforge::quake
