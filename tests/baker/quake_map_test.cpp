// Quake .map scenes: parser, brush clipping, ericw-tools light conventions, texture albedo.
#include "baker/quake/quake_map.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <numbers>
#include <sstream>

#include "baker/quake/brush.hpp"
#include "baker/quake/light_entities.hpp"
#include "baker/quake/texture_albedo.hpp"

namespace q = mixforge::quake;
using q::Vec3;

namespace {

const std::filesystem::path kSource = MIXFORGE_SOURCE_DIR;
const std::filesystem::path kScenes = kSource / "baker/scenes/librequake";
const std::filesystem::path kCorpus = kSource / "tests/baker/data/maps";

std::string read_bytes(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Everything a baker does with a map: parse, build the static brushes, read the lights.
void load_everything(std::string_view text, const std::string& name) {
  const q::QuakeMap map = q::parse_quake_map(text, name);
  q::BrushSelection all;
  all.classnames.clear();
  for (const auto& e : map.entities) all.classnames.push_back(e.classname());
  (void)q::build_brushes(map, all);
  (void)q::read_lights(map);
}

// Three points on the plane dot(n, x) = d, ordered so that qbsp's normal is +n.
std::string face_line(Vec3 n, double d, const char* texture = "base") {
  n = q::normalize(n);
  const Vec3 helper = std::fabs(n.z) < 0.9 ? Vec3{0, 0, 1} : Vec3{1, 0, 0};
  const Vec3 u = q::normalize(q::cross(helper, n));
  const Vec3 v = q::cross(n, u);
  const Vec3 p1 = n * d, p0 = p1 + u * 64, p2 = p1 + v * 64;
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "( %.17g %.17g %.17g ) ( %.17g %.17g %.17g ) ( %.17g %.17g %.17g ) %s 0 0 0 1 1\n",
                p0.x, p0.y, p0.z, p1.x, p1.y, p1.z, p2.x, p2.y, p2.z, texture);
  return buf;
}

std::string world_with_brush(const std::vector<q::Plane>& planes) {
  std::string text = "{\n\"classname\" \"worldspawn\"\n{\n";
  for (const auto& p : planes) text += face_line(p.normal, p.distance);
  return text + "}\n}\n";
}

std::vector<q::Plane> box(Vec3 lo, Vec3 hi) {
  return {{{-1, 0, 0}, -lo.x}, {{1, 0, 0}, hi.x},   {{0, -1, 0}, -lo.y},
          {{0, 1, 0}, hi.y},   {{0, 0, -1}, -lo.z}, {{0, 0, 1}, hi.z}};
}

// Rotation about a unit axis (Rodrigues).
Vec3 rotate(Vec3 v, Vec3 axis, double radians) {
  axis = q::normalize(axis);
  const double c = std::cos(radians), s = std::sin(radians);
  return v * c + q::cross(axis, v) * s + axis * (q::dot(axis, v) * (1 - c));
}

std::vector<q::Plane> rotated(const std::vector<q::Plane>& planes, Vec3 axis, double radians,
                              Vec3 shift) {
  std::vector<q::Plane> out;
  for (const auto& p : planes) {
    const Vec3 n = rotate(p.normal, axis, radians);
    out.push_back({n, p.distance + q::dot(n, shift)});
  }
  return out;
}

double brush_volume(const q::Brush& b) {
  q::ConvexPolyhedron solid;
  for (const auto& f : b.faces) solid.faces.push_back({f.polygon, 0});
  return q::polyhedron_volume(solid);
}

}  // namespace

// --- parsing ---------------------------------------------------------------------------

TEST(QuakeMapParse, StandardAndValveFacesCommentsAndKeys) {
  const std::string text =
      "// Game: Quake\n"
      "{ // the world\n"
      "\"classname\" \"worldspawn\"\n"
      "\"message\" \"first\"\n"
      "\"message\" \"second // not a comment\"\n"
      "{\n"
      "( 0 0 0 ) ( 0 1 0 ) ( 0 0 1 ) +0slime 16 -8 90 2 0.5\n"
      "( 0 0 0 ) ( 0 0 1 ) ( 1 0 0 ) \"quoted name\" [ 1 0 0 4 ] [ 0 0 -1 -2 ] 0 0.25 1 1 2 3\n"
      "( 0 0 0 ) ( 1 0 0 ) ( 0 1 0 ) {fence +1.5 -0 0 1 1\n"
      "( 64 64 64 ) ( 64 65 64 ) ( 65 64 64 ) a 0 0 0 1 1\n"
      "( 64 64 64 ) ( 64 64 65 ) ( 64 65 64 ) a 0 0 0 1 1\n"
      "( 64 64 64 ) ( 65 64 64 ) ( 64 64 65 ) a 0 0 0 1 1 // trailing comment\n"
      "}\n"
      "}\n";
  const q::QuakeMap map = q::parse_quake_map(text, "t.map");
  ASSERT_EQ(map.entities.size(), 1u);
  ASSERT_NE(map.worldspawn(), nullptr);
  const q::Entity& w = *map.worldspawn();
  EXPECT_EQ(w.value("message"), "second // not a comment");  // the later duplicate wins
  EXPECT_EQ(w.pairs.size(), 3u);
  EXPECT_EQ(w.where.line, 2);
  ASSERT_EQ(w.brushes.size(), 1u);
  const auto& faces = w.brushes[0].faces;
  ASSERT_EQ(faces.size(), 6u);
  EXPECT_EQ(faces[0].texture, "+0slime");
  EXPECT_EQ(faces[0].format, q::FaceFormat::standard);
  EXPECT_EQ(faces[0].u_offset, 16);
  EXPECT_EQ(faces[0].v_offset, -8);
  EXPECT_EQ(faces[0].rotation, 90);
  EXPECT_EQ(faces[0].u_scale, 2);
  EXPECT_EQ(faces[0].v_scale, 0.5);
  EXPECT_EQ(faces[1].texture, "quoted name");
  EXPECT_EQ(faces[1].format, q::FaceFormat::valve220);
  EXPECT_EQ(faces[1].u_axis, (Vec3{1, 0, 0}));
  EXPECT_EQ(faces[1].v_axis, (Vec3{0, 0, -1}));
  EXPECT_EQ(faces[1].u_offset, 4);
  EXPECT_EQ(faces[1].v_offset, -2);
  EXPECT_EQ(faces[1].u_scale, 0.25);
  EXPECT_EQ(faces[2].texture, "{fence");
  EXPECT_EQ(faces[2].u_offset, 1.5);
  EXPECT_EQ(faces[3].where.line, 10);
  EXPECT_EQ(faces[3].where.column, 1);
  EXPECT_EQ(faces[0].normal(), (Vec3{-1, 0, 0}));
  EXPECT_EQ(faces[3].normal(), (Vec3{0, 0, 1}));
  EXPECT_EQ(faces[3].distance(), 64);
  EXPECT_EQ(map.brush_count(), 1u);
  EXPECT_EQ(map.face_count(), 6u);
}

TEST(QuakeMapParse, EmptyInputIsAnEmptyMap) {
  EXPECT_TRUE(q::parse_quake_map("", "e.map").entities.empty());
  EXPECT_TRUE(q::parse_quake_map("// only a comment", "e.map").entities.empty());
  EXPECT_EQ(q::parse_quake_map("{ }", "e.map").worldspawn(), nullptr);
}

TEST(QuakeMapParse, ByteOrderMarkAndWindowsLineEndings) {
  const std::string text =
      "\xEF\xBB\xBF{\r\n\"classname\" \"worldspawn\"\r\n\"message\" "
      "\"hi\"\r\n}\r\n{\r\n\"oops\"\r\n}\r\n";
  try {
    q::parse_quake_map(text, "bom.map");
    FAIL();
  } catch (const q::MapError& e) {
    // The BOM takes no column; the error is at the '}' that follows the lone key.
    EXPECT_STREQ(e.what(), "bom.map:7:1: expected a value, found '}'");
  }
  const auto map = q::parse_quake_map(text.substr(0, text.find("{\r\n\"oops\"")), "bom.map");
  ASSERT_NE(map.worldspawn(), nullptr);
  EXPECT_EQ(map.worldspawn()->value("message"), "hi");
}

TEST(QuakeMapParse, TinyTextureScaleIsAnError) {
  const std::string text =
      "{\n\"classname\" \"worldspawn\"\n{\n( 0 0 0 ) ( 0 1 0 ) ( 0 0 1 ) a 0 0 0 1e-300 1\n}\n}\n";
  try {
    q::parse_quake_map(text, "s.map");
    FAIL();
  } catch (const q::MapError& e) {
    EXPECT_STREQ(e.what(),
                 "s.map:4:39: texture x scale '1e-300' is too small (|scale| >= 1e-6, or 0 for 1)");
  }
}

TEST(QuakeMapParse, StandardProjectionFollowsQbspBaseAxes) {
  q::FaceDef floor;  // normal +z: s = +x, t = -y
  floor.points = {Vec3{64, 64, 64}, Vec3{64, 65, 64}, Vec3{65, 64, 64}};
  ASSERT_EQ(floor.normal(), (Vec3{0, 0, 1}));
  floor.u_offset = 3;
  floor.v_offset = 5;
  auto p = floor.projection();
  EXPECT_EQ(p.s, (Vec3{1, 0, 0}));
  EXPECT_EQ(p.t, (Vec3{0, -1, 0}));
  EXPECT_EQ(p.s_offset, 3);
  EXPECT_EQ(p.t_offset, 5);
  // Rotation by 90 degrees: (x, -y) axes become (y, x) after qbsp's rotation of the s/t
  // components; scale 2 halves the texel rate, scale 0 counts as 1.
  floor.rotation = 90;
  floor.u_scale = 2;
  floor.v_scale = 0;
  p = floor.projection();
  EXPECT_NEAR(p.s.x, 0, 1e-15);
  EXPECT_NEAR(p.s.y, 0.5, 1e-15);
  EXPECT_NEAR(p.t.x, 1, 1e-15);
  EXPECT_NEAR(p.t.y, 0, 1e-15);
  // Normal +x (the table's "west wall" row): s = +y, t = -z.
  q::FaceDef wall;
  wall.points = {Vec3{64, 64, 64}, Vec3{64, 64, 65}, Vec3{64, 65, 64}};
  ASSERT_EQ(wall.normal(), (Vec3{1, 0, 0}));
  p = wall.projection();
  EXPECT_EQ(p.s, (Vec3{0, 1, 0}));
  EXPECT_EQ(p.t, (Vec3{0, 0, -1}));
  // Valve 220: the axes divided by the scales, rotation ignored.
  q::FaceDef valve = wall;
  valve.format = q::FaceFormat::valve220;
  valve.u_axis = {0, 0.6, 0.8};
  valve.v_axis = {0, 0.8, -0.6};
  valve.u_scale = 0.5;
  valve.v_scale = 4;
  valve.rotation = 33;
  valve.u_offset = 7;
  p = valve.projection();
  EXPECT_EQ(p.s, (Vec3{0, 1.2, 1.6}));
  EXPECT_EQ(p.t, (Vec3{0, 0.2, -0.15}));
  EXPECT_EQ(p.s_offset, 7);
}

// --- brush clipping ----------------------------------------------------------------------

TEST(BrushClipping, CubeHasSixSquaresAndKnownVolume) {
  const auto planes = box({0, 0, 0}, {64, 32, 16});
  const q::ConvexPolyhedron solid = q::intersect_half_spaces(planes);
  EXPECT_TRUE(solid.bounded);
  ASSERT_EQ(solid.faces.size(), 6u);
  EXPECT_DOUBLE_EQ(q::polyhedron_volume(solid), 64.0 * 32 * 16);
  for (const auto& f : solid.faces) {
    EXPECT_EQ(f.vertices.size(), 4u);
    // Counter-clockwise around the outward normal.
    Vec3 area;
    for (std::size_t i = 0; i < f.vertices.size(); ++i)
      area = area + q::cross(f.vertices[i], f.vertices[(i + 1) % f.vertices.size()]);
    EXPECT_GT(q::dot(area, planes[static_cast<std::size_t>(f.plane)].normal), 0);
    for (const Vec3& v : f.vertices) {  // axial clipping keeps exact integer corners
      EXPECT_EQ(v.x, std::round(v.x));
      EXPECT_EQ(v.y, std::round(v.y));
      EXPECT_EQ(v.z, std::round(v.z));
    }
  }
}

TEST(BrushClipping, WedgePyramidAndRotatedBoxes) {
  // Wedge: the 64^3 cube cut by the diagonal plane x + z <= 64: half the cube, 5 faces.
  auto wedge = box({0, 0, 0}, {64, 64, 64});
  wedge.push_back({q::normalize({1, 0, 1}), 64 / std::sqrt(2.0)});
  auto solid = q::intersect_half_spaces(wedge);
  EXPECT_NEAR(q::polyhedron_volume(solid), 64.0 * 64 * 64 / 2, 1e-6);
  EXPECT_EQ(solid.faces.size(), 5u);  // +x and +z sides only touch the cut along edges

  // Square pyramid, base 128 x 128 at z = 0, apex (0, 0, 96): V = a^2 h / 3.
  std::vector<q::Plane> pyramid = {{{0, 0, -1}, 0}};
  for (Vec3 side : {Vec3{1, 0, 0}, Vec3{-1, 0, 0}, Vec3{0, 1, 0}, Vec3{0, -1, 0}}) {
    const Vec3 n = q::normalize(side * 96 + Vec3{0, 0, 64});  // through (64,0,0) and apex
    pyramid.push_back({n, q::dot(n, Vec3{0, 0, 96})});
  }
  solid = q::intersect_half_spaces(pyramid);
  EXPECT_TRUE(solid.bounded);
  EXPECT_NEAR(q::polyhedron_volume(solid), 128.0 * 128 * 96 / 3, 1e-6);
  EXPECT_EQ(solid.faces.size(), 5u);

  // Boxes rotated about arbitrary axes and moved keep their volume and stay closed.
  const auto base = box({-40, -24, -8}, {40, 24, 8});
  for (int k = 0; k < 12; ++k) {
    const Vec3 axis{std::cos(k * 0.7), std::sin(k * 1.3), 0.5 + k * 0.1};
    const auto r = rotated(base, axis, 0.3 + k * 0.45, {100.0 * k, -37.0, 11.5 * k});
    solid = q::intersect_half_spaces(r);
    EXPECT_TRUE(solid.bounded);
    EXPECT_EQ(solid.faces.size(), 6u);
    EXPECT_NEAR(q::polyhedron_volume(solid), 80.0 * 48 * 16, 1e-8) << "rotation " << k;
    Vec3 closure;
    for (const auto& f : solid.faces) {
      for (std::size_t i = 0; i < f.vertices.size(); ++i)
        closure = closure + q::cross(f.vertices[i], f.vertices[(i + 1) % f.vertices.size()]);
    }
    EXPECT_NEAR(q::length(closure), 0, 1e-6);
  }
}

TEST(BrushClipping, RedundantDuplicateOpenAndEmpty) {
  auto planes = box({0, 0, 0}, {16, 16, 16});
  planes.push_back({{0, 0, 1}, 100});                                // redundant: far outside
  planes.push_back({q::normalize({1, 1, 0}), 16 * std::sqrt(2.0)});  // touches an edge only
  planes.push_back(planes[1]);                                       // duplicate of +x
  auto solid = q::intersect_half_spaces(planes);
  EXPECT_EQ(solid.faces.size(), 6u);
  EXPECT_NEAR(q::polyhedron_volume(solid), 4096, 1e-9);

  auto open = box({0, 0, 0}, {16, 16, 16});
  open.pop_back();
  EXPECT_FALSE(q::intersect_half_spaces(open).bounded);

  auto contradictory = box({0, 0, 0}, {16, 16, 16});
  contradictory[5].distance = -1;  // top below the bottom
  EXPECT_TRUE(q::intersect_half_spaces(contradictory).faces.empty());
}

// Random polytopes circumscribing a sphere: all corners inside every half-space, faces on
// their planes, a closed surface, and at least the sphere's volume.
TEST(BrushClipping, RandomCircumscribedPolytopes) {
  std::uint64_t state = 0x9E3779B97F4A7C15ull;
  const auto uniform = [&state] {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return static_cast<double>(state >> 11) * 0x1.0p-53;
  };
  std::size_t bounded = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const int count = 4 + trial % 27;
    const double radius = 1 + 500 * uniform();
    const Vec3 centre{2000 * uniform() - 1000, 2000 * uniform() - 1000, 2000 * uniform() - 1000};
    std::vector<q::Plane> planes;
    for (int i = 0; i < count; ++i) {
      const double z = 2 * uniform() - 1, a = 2 * std::numbers::pi * uniform();
      const Vec3 n{std::sqrt(1 - z * z) * std::cos(a), std::sqrt(1 - z * z) * std::sin(a), z};
      planes.push_back({n, radius + q::dot(n, centre)});
    }
    const q::ConvexPolyhedron solid = q::intersect_half_spaces(planes);
    if (!solid.bounded) continue;  // the normals all lie in one hemisphere
    ++bounded;
    SCOPED_TRACE(trial);
    Vec3 closure;
    for (const auto& f : solid.faces) {
      ASSERT_GE(f.plane, 0);
      const q::Plane& own = planes[static_cast<std::size_t>(f.plane)];
      for (std::size_t i = 0; i < f.vertices.size(); ++i) {
        const Vec3& v = f.vertices[i];
        closure = closure + q::cross(v, f.vertices[(i + 1) % f.vertices.size()]);
        EXPECT_NEAR(q::dot(own.normal, v), own.distance, 1e-6);
        for (const auto& p : planes) EXPECT_LE(q::dot(p.normal, v) - p.distance, 1e-6);
      }
    }
    EXPECT_NEAR(q::length(closure), 0, 1e-6 * radius * radius);
    EXPECT_GE(q::polyhedron_volume(solid),
              4.0 / 3 * std::numbers::pi * radius * radius * radius * (1 - 1e-9));
  }
  EXPECT_GT(bounded, 200u);
}

TEST(BrushClipping, ExtremeButValidBrushes) {
  // The largest box the coordinate limit allows.
  const double m = q::kMaxCoordinate;
  auto solid = q::intersect_half_spaces(box({-m, -m, -m}, {m, m, m}));
  EXPECT_TRUE(solid.bounded);
  EXPECT_NEAR(q::polyhedron_volume(solid) / (8 * m * m * m), 1, 1e-12);
  // A sliver 1/1000 unit thick.
  solid = q::intersect_half_spaces(box({0, 0, 0}, {256, 256, 0.001}));
  EXPECT_EQ(solid.faces.size(), 6u);
  EXPECT_NEAR(q::polyhedron_volume(solid), 256 * 256 * 0.001, 1e-6);
  // Nearly parallel planes cutting a corner: finite, closed, never more than the box.
  auto planes = box({0, 0, 0}, {64, 64, 64});
  planes.push_back({q::normalize({1, 1e-9, 0}), 63.999999});
  planes.push_back({q::normalize({1, -1e-9, 1e-9}), 64});
  solid = q::intersect_half_spaces(planes);
  EXPECT_TRUE(solid.bounded);
  EXPECT_LE(q::polyhedron_volume(solid), 64.0 * 64 * 64 + 1e-6);
  EXPECT_GT(q::polyhedron_volume(solid), 64.0 * 64 * 63.99);
}

TEST(BrushClipping, MapBrushesCarryTexturesAndLocations) {
  auto planes = rotated(box({0, 0, 0}, {64, 64, 32}), {0, 0, 1}, std::numbers::pi / 6, {8, 8, 0});
  const q::QuakeMap map = q::parse_quake_map(world_with_brush(planes), "rot.map");
  const auto brushes = q::build_brushes(map);
  ASSERT_EQ(brushes.size(), 1u);
  EXPECT_NEAR(brush_volume(brushes[0]), 64.0 * 64 * 32, 1e-4);
  ASSERT_EQ(brushes[0].faces.size(), 6u);
  for (const auto& f : brushes[0].faces) {
    EXPECT_EQ(f.texture, "base");
    EXPECT_GE(f.where.line, 4);
    EXPECT_NEAR(q::length(f.normal), 1, 1e-12);
    for (const Vec3& v : f.polygon) EXPECT_NEAR(q::dot(v, f.normal), f.distance, 1e-6);
  }
}

TEST(BrushClipping, SelectionKeepsWorldDetailWallGroupAndSkipsMovers) {
  std::string text = world_with_brush(box({0, 0, 0}, {8, 8, 8}));
  const auto brush_text = [](const char* classname, const char* extra = "") {
    std::string t = std::string("{\n\"classname\" \"") + classname + "\"\n" + extra + "{\n";
    for (const auto& p : box({0, 0, 0}, {8, 8, 8})) t += face_line(p.normal, p.distance);
    return t + "}\n}\n";
  };
  for (const char* c : {"func_detail", "func_wall", "func_group", "func_door", "trigger_once"})
    text += brush_text(c);
  text += brush_text("func_group", "\"_tb_layer_omit_from_export\" \"1\"\n");
  const q::QuakeMap map = q::parse_quake_map(text, "sel.map");
  const auto brushes = q::build_brushes(map);
  ASSERT_EQ(brushes.size(), 4u);
  EXPECT_EQ(brushes[0].entity, 0u);
  EXPECT_EQ(brushes[1].entity, 1u);
  EXPECT_EQ(brushes[2].entity, 2u);
  EXPECT_EQ(brushes[3].entity, 3u);
  q::BrushSelection doors{{"func_door"}};
  EXPECT_EQ(q::build_brushes(map, doors).size(), 1u);
}

// --- malformed maps ----------------------------------------------------------------------

struct Malformed {
  const char* file;
  int line, column;
  const char* fragment;
};

TEST(QuakeMapErrors, CorpusGivesLineAndColumn) {
  const Malformed cases[] = {
      {"truncated.map", 6, 39, "expected a texture rotation, found end of file"},
      {"bad_number.map", 4, 5, "expected a coordinate, found 'x7'"},
      {"missing_entity_brace.map", 11, 1, "entity opened at 1:1 is not closed"},
      {"missing_brush_brace.map", 10, 1, "brush opened at 3:1 is not closed"},
      {"nan.map", 7, 6, "'nan' is not a finite number"},
      {"infinity.map", 5, 42, "'inf' is not a finite number"},
      {"huge.map", 9, 16, "'1e300' is out of range"},
      {"overflow.map", 6, 42, "'1e999' is out of range"},
      {"invalid_utf8.map", 3, 17, "invalid UTF-8 (byte 0xFF)"},
      {"nul_byte.map", 9, 54, "unexpected control character U+0000"},
      {"degenerate_plane.map", 5, 1, "degenerate face"},
      {"empty_brush.map", 3, 1, "empty brush"},
      {"open_brush.map", 3, 1, "brush is not closed"},
      {"no_volume.map", 3, 1, "brush encloses no volume"},
      {"unterminated_string.map", 2, 13, "unterminated string"},
      {"patch.map", 4, 1, "'patchDef2' blocks"},
      {"stray_token.map", 12, 1, "expected '{' to open an entity, found 'garbage'"},
      {"valve_zero_axis.map", 6, 36, "texture axis is the zero vector"},
      {"bad_light.map", 15, 10, "'bright' is not a usable number"},
      {"key_without_value.map", 4, 1, "expected a value, found '}'"},
      {"missing_scale.map", 5, 1, "expected a texture y scale, found '('"},
      {"bad_origin.map", 14, 10, "\"origin\" must be three numbers"},
      {"close_without_open.map", 2, 1, "expected '{' to open an entity, found '}'"},
  };
  std::size_t seen = 0;
  for (const auto& c : cases) {
    SCOPED_TRACE(c.file);
    const std::string text = read_bytes(kCorpus / c.file);
    ASSERT_FALSE(text.empty());
    try {
      load_everything(text, c.file);
      ADD_FAILURE() << "no error";
    } catch (const q::MapError& e) {
      const std::string prefix = std::string(c.file) + ":" + std::to_string(c.line) + ":" +
                                 std::to_string(c.column) + ": ";
      EXPECT_EQ(std::string(e.what()).substr(0, prefix.size()), prefix) << e.what();
      EXPECT_NE(e.message().find(c.fragment), std::string::npos) << e.what();
      EXPECT_EQ(e.file(), c.file);
      EXPECT_EQ(e.where().line, c.line);
    }
    ++seen;
  }
  // Every file of the corpus is listed above.
  std::size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kCorpus))
    files += entry.path().extension() == ".map";
  EXPECT_EQ(files, seen);
}

// Messages quote the offending text; cut to a length, they must still be valid UTF-8 (the
// daemon puts them into JSON problem documents).
TEST(QuakeMapErrors, QuotedTextIsCutAtCharacterBoundaries) {
  std::string junk;
  for (int i = 0; i < 30; ++i) junk += "\xE2\x82\xAC";  // 30 x U+20AC, 90 bytes
  try {
    q::parse_quake_map(junk, "u.map");
    FAIL();
  } catch (const q::MapError& e) {
    const std::string what = e.what();
    std::size_t i = 0;
    while (i < what.size()) {  // every lead byte 0xE2 has both continuation bytes
      if (static_cast<unsigned char>(what[i]) == 0xE2) {
        ASSERT_LT(i + 2, what.size());
        EXPECT_EQ(what.substr(i, 3), "\xE2\x82\xAC") << i;
        i += 3;
      } else {
        EXPECT_LT(static_cast<unsigned char>(what[i]), 0x80) << i;
        ++i;
      }
    }
    EXPECT_EQ(what.rfind("u.map:1:1: expected '{' to open an entity, found '\xE2\x82\xAC", 0), 0u);
  }
}

TEST(QuakeMapErrors, ReadingAMissingFileNamesIt) {
  try {
    q::read_quake_map(kCorpus / "no_such.map");
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("no_such.map: cannot open"), std::string::npos);
  }
}

// No prefix of a real map, and no single-byte corruption of one, crashes the loader: each
// either loads or throws MapError (anything else escapes and fails the test).
TEST(QuakeMapErrors, TruncatedAndCorruptedRealMapNeverCrash) {
  const std::string text = read_bytes(kScenes / "end.map");
  ASSERT_GT(text.size(), 50000u);
  std::size_t loaded = 0, rejected = 0;
  const auto attempt = [&](std::string_view t) {
    try {
      load_everything(t, "end.map");
      ++loaded;
    } catch (const q::MapError& e) {
      ++rejected;
      EXPECT_EQ(std::string(e.what()).rfind("end.map:", 0), 0u) << e.what();
    }
  };
  for (std::size_t cut = 0; cut <= text.size(); cut += 37)
    attempt(std::string_view(text).substr(0, cut));
  for (std::size_t cut = text.size() - 200; cut <= text.size(); ++cut)
    attempt(std::string_view(text).substr(0, cut));
  const char replacements[] = {'{',    '}', '(', ')', '"', '[', '\0',
                               '\xff', '9', '-', 'e', '/', '\n'};
  std::size_t k = 0;
  for (std::size_t at = 0; at < text.size(); at += 211, ++k) {
    std::string corrupt = text;
    corrupt[at] = replacements[k % sizeof replacements];
    attempt(corrupt);
  }
  EXPECT_GT(rejected, 1500u);
  EXPECT_GT(loaded, 0u);  // the whole file, and cuts that land between entities
}

// --- LibreQuake maps ---------------------------------------------------------------------

struct Expected {
  const char* file;
  std::size_t entities, brushes, faces, static_brushes, static_faces, lights, surface_lights;
};

// Counted independently with a line-based script over the files (brush = '{' at depth 2,
// face = line starting with '(', light = classname starting with "light").
TEST(LibreQuake, MapsLoadWithTheCountsOfTheirText) {
  const Expected maps[] = {
      {"lqdm1.map", 130, 389, 2334, 384, 2304, 44, 0},
      {"end.map", 18, 72, 432, 71, 426, 0, 2},
      {"slope.map", 4, 103, 602, 103, 602, 0, 0},
  };
  for (const auto& m : maps) {
    SCOPED_TRACE(m.file);
    const auto t0 = std::chrono::steady_clock::now();
    const q::QuakeMap map = q::read_quake_map(kScenes / m.file);
    const auto brushes = q::build_brushes(map);
    const q::MapLights lights = q::read_lights(map);
    const auto t3 = std::chrono::steady_clock::now();
    EXPECT_EQ(map.entities.size(), m.entities);
    EXPECT_EQ(map.brush_count(), m.brushes);
    EXPECT_EQ(map.face_count(), m.faces);
    EXPECT_EQ(brushes.size(), m.static_brushes);
    std::size_t polygons = 0, face_lines = 0, boxes = 0;
    for (const auto& b : brushes) {
      polygons += b.faces.size();
      EXPECT_GT(brush_volume(b), 0);
      // Axis-aligned boxes, checked against their bounding boxes.
      bool axial = b.faces.size() == 6;
      Vec3 lo = b.faces[0].polygon[0], hi = lo;
      for (const auto& f : b.faces) {
        axial &= std::fabs(f.normal.x) + std::fabs(f.normal.y) + std::fabs(f.normal.z) == 1;
        for (const Vec3& v : f.polygon) {
          lo = {std::min(lo.x, v.x), std::min(lo.y, v.y), std::min(lo.z, v.z)};
          hi = {std::max(hi.x, v.x), std::max(hi.y, v.y), std::max(hi.z, v.z)};
        }
      }
      if (axial) {
        ++boxes;
        EXPECT_NEAR(brush_volume(b), (hi.x - lo.x) * (hi.y - lo.y) * (hi.z - lo.z), 1e-6);
      }
    }
    for (const auto& e : map.entities)
      if (q::BrushSelection{}.selects(e))
        for (const auto& b : e.brushes) face_lines += b.faces.size();
    EXPECT_EQ(face_lines, m.static_faces);
    EXPECT_GT(boxes, m.static_brushes / 4);
    // TrenchBroom writes no redundant planes: every face line becomes a polygon.
    EXPECT_EQ(polygons, m.static_faces);
    EXPECT_EQ(lights.lights.size(), m.lights);
    EXPECT_EQ(lights.surface_lights.size(), m.surface_lights);
    EXPECT_TRUE(lights.warnings.empty());
    // Timing (reported, not asserted): the least process CPU time of 5 repetitions, so a
    // busy shared machine inflates it less than wall time.
    double parse_ms = 1e9, clip_ms = 1e9, light_ms = 1e9;
    const auto cpu_ms = [] { return 1000.0 * static_cast<double>(std::clock()) / CLOCKS_PER_SEC; };
    for (int rep = 0; rep < 5; ++rep) {
      const double c0 = cpu_ms();
      const q::QuakeMap again = q::read_quake_map(kScenes / m.file);
      const double c1 = cpu_ms();
      const auto built = q::build_brushes(again);
      const double c2 = cpu_ms();
      const auto lit = q::read_lights(again);
      const double c3 = cpu_ms();
      parse_ms = std::min(parse_ms, c1 - c0);
      clip_ms = std::min(clip_ms, c2 - c1);
      light_ms = std::min(light_ms, c3 - c2);
    }
    std::printf(
        "[ timing   ] %s (%zu bytes): parse %.2f ms, %zu brushes clipped in %.2f ms, "
        "lights %.3f ms (least CPU time of 5; first run wall %.2f ms total)\n",
        m.file, std::filesystem::file_size(kScenes / m.file), parse_ms, brushes.size(), clip_ms,
        light_ms, std::chrono::duration<double, std::milli>(t3 - t0).count());
  }
}

TEST(LibreQuake, LightsAndSunsAsWritten) {
  const q::MapLights dm = q::read_lights(q::read_quake_map(kScenes / "lqdm1.map"));
  ASSERT_EQ(dm.lights.size(), 44u);
  std::size_t bright = 0;
  for (const auto& l : dm.lights) {
    EXPECT_EQ(l.formula, q::Attenuation::inverse_square);
    EXPECT_EQ(l.wait, 0.7);
    EXPECT_FALSE(l.spotlight);
    bright += l.light == 220;
  }
  EXPECT_EQ(bright, 2u);
  EXPECT_EQ(dm.lights[0].origin, (Vec3{-136, 104, 264}));
  EXPECT_TRUE(dm.suns.empty());
  EXPECT_TRUE(dm.domes.empty());

  const q::MapLights slope = q::read_lights(q::read_quake_map(kScenes / "slope.map"));
  ASSERT_EQ(slope.suns.size(), 1u);
  EXPECT_EQ(slope.suns[0].light, 100);
  EXPECT_NEAR(slope.suns[0].color.r, 0.83 * 255, 1e-9);
  const Vec3 d = q::direction_from_mangle(60, -45);
  EXPECT_NEAR(slope.suns[0].direction.x, d.x, 1e-12);
  EXPECT_NEAR(slope.suns[0].direction.z, -std::sqrt(0.5), 1e-12);
  ASSERT_EQ(slope.domes.size(), 1u);
  EXPECT_EQ(slope.domes[0].light, 190);
  EXPECT_NEAR(slope.domes[0].color.b, 255, 1e-9);
  EXPECT_EQ(slope.minlight, 50);  // worldspawn "light" is ericw's minlight

  // end.map disables "_sun_mangle_" with a trailing underscore: the sun points straight down.
  const q::MapLights end = q::read_lights(q::read_quake_map(kScenes / "end.map"));
  ASSERT_EQ(end.suns.size(), 1u);
  EXPECT_NEAR(end.suns[0].direction.z, -1, 1e-12);
  ASSERT_EQ(end.surface_lights.size(), 2u);
  EXPECT_EQ(end.surface_lights[0].surface_texture, "flat_16_e");
  EXPECT_EQ(end.surface_lights[0].color, (q::Rgb{62, 197, 255}));
  EXPECT_EQ(end.surface_lights[0].style, 11);
}

// --- lights ------------------------------------------------------------------------------

TEST(LightFormulas, HandComputedValues) {
  using A = q::Attenuation;
  // Linear: light - wait * d.
  EXPECT_DOUBLE_EQ(q::light_value(A::linear, 300, 0, 1, 100), 200);
  EXPECT_DOUBLE_EQ(q::light_value(A::linear, 300, 0, 2, 100), 100);
  EXPECT_DOUBLE_EQ(q::light_value(A::linear, 300, 0, 1, 400), 0);
  EXPECT_DOUBLE_EQ(q::light_value(A::linear, -100, 0, 1, 30), -70);       // negative lights
  EXPECT_DOUBLE_EQ(q::light_value(A::linear, 300, 0, 1, 100, 0.5), 250);  // worldspawn _dist
  // _falloff: 300 * (1 - 50 / 200).
  EXPECT_DOUBLE_EQ(q::light_value(A::linear, 300, 200, 1, 50), 225);
  EXPECT_DOUBLE_EQ(q::light_value(A::linear, 300, 200, 1, 250), 0);
  // 1/x: 300 / (256 / 128).
  EXPECT_DOUBLE_EQ(q::light_value(A::inverse, 300, 0, 1, 256), 150);
  // 1/x^2: 300 / (256^2 / 128^2); wait 0.7 at 128: 300 / 0.49.
  EXPECT_DOUBLE_EQ(q::light_value(A::inverse_square, 300, 0, 1, 256), 75);
  EXPECT_NEAR(q::light_value(A::inverse_square, 120, 0, 0.7, 128), 120 / 0.49, 1e-9);
  // delay 5: 300 / ((128 + 128)^2 / 128^2) = 75; at distance 0 it stays finite (300).
  EXPECT_DOUBLE_EQ(q::light_value(A::inverse_square_offset, 300, 0, 1, 128), 75);
  EXPECT_DOUBLE_EQ(q::light_value(A::inverse_square_offset, 300, 0, 1, 0), 300);
  // delay 3 and 4: no attenuation.
  EXPECT_DOUBLE_EQ(q::light_value(A::infinite, 300, 0, 1, 5000), 300);
  EXPECT_DOUBLE_EQ(q::light_value(A::local_min, 40, 0, 1, 5000), 40);
}

TEST(LightFormulas, AngleSpotlightAndColor) {
  q::PointLight l;
  l.origin = {0, 0, 100};
  l.light = 300;
  l.color = {255, 127.5, 0};
  const Vec3 up{0, 0, 1};
  // Straight below: 300 - 100 = 200, cos = 1.
  EXPECT_DOUBLE_EQ(q::light_value_at(l, {0, 0, 0}, up), 200);
  // 60 degrees off the normal (d = 200): (300 - 200) * (0.5 + 0.5 * 0.5).
  const Vec3 p{100 * std::sqrt(3.0), 0, 0};
  EXPECT_NEAR(q::light_value_at(l, p, up), 100 * 0.75, 1e-9);
  l.anglescale = 1;
  EXPECT_NEAR(q::light_value_at(l, p, up), 100 * 0.5, 1e-9);
  EXPECT_EQ(q::light_value_at(l, {0, 0, 0}, {0, 0, -1}), 0);  // behind the surface
  const q::Rgb c = q::light_color_at(l, {0, 0, 0}, up);
  EXPECT_DOUBLE_EQ(c.r, 200);
  EXPECT_DOUBLE_EQ(c.g, 100);
  EXPECT_DOUBLE_EQ(c.b, 0);

  // Spotlight pointing down, cone 40 (half 20), soft 20 (half 10).
  l.anglescale = 0.5;
  l.spotlight = true;
  l.spot_direction = {0, 0, -1};
  l.cone_angle = 40;
  l.soft_angle = 20;
  const double deg = std::numbers::pi / 180;
  EXPECT_DOUBLE_EQ(q::spot_factor(l, std::cos(5 * deg)), 1);
  EXPECT_DOUBLE_EQ(q::spot_factor(l, std::cos(25 * deg)), 0);
  const double f = -std::cos(15 * deg), outer = -std::cos(20 * deg), inner = -std::cos(10 * deg);
  EXPECT_NEAR(q::spot_factor(l, std::cos(15 * deg)), 1 - (f - inner) / (outer - inner), 1e-12);
  EXPECT_NEAR(q::spot_factor(l, std::cos(15 * deg)), 0.5815, 1e-4);
  // A point 30 degrees off the spot axis gets nothing.
  EXPECT_EQ(q::light_value_at(l, {100 * std::tan(30 * deg), 0, 0}, up), 0);
}

TEST(LightEntities, KeysFollowEricwConventions) {
  const std::string text =
      "{\n\"classname\" \"worldspawn\"\n\"_anglescale\" \"0.8\"\n"
      "\"_sunlight\" \"150\"\n\"_sun_mangle\" \"90 -30 0\"\n\"_sunlight_color\" \"255 128 0\"\n"
      "\"_sunlight2\" \"65\"\n\"_sunlight2_color\" \"0.5 0.5 1\"\n}\n"
      "{\n\"classname\" \"light\"\n\"origin\" \"0 0 64\"\n}\n"  // 1: defaults
      "{\n\"classname\" \"light_torch_small_walltorch\"\n\"origin\" \"1 2 3\"\n"
      "\"light\" \"200\"\n\"__color\" \"1 0.5 0\"\n\"wait\" \"-3\"\n\"delay\" \"1\"\n"
      "\"_falloff\" \"99\"\n\"_anglesense\" \"0.25\"\n}\n"  // 2
      "{\n\"classname\" \"light\"\n\"origin\" \"0 0 128\"\n\"target\" \"spot\"\n"
      "\"angle\" \"60\"\n\"_softangle\" \"30\"\n}\n"  // 3: spot at the target
      "{\n\"classname\" \"info_null\"\n\"targetname\" \"spot\"\n\"origin\" \"0 0 0\"\n}\n"
      "{\n\"classname\" \"light\"\n\"origin\" \"0 0 0\"\n\"mangle\" \"0 90 0\"\n"
      "\"_cone\" \"15\"\n\"_softangle\" \"90\"\n}\n"  // 5: mangle, q2 cone
      "{\n\"classname\" \"light\"\n\"origin\" \"0 0 0\"\n\"light\" \"50\"\n\"_sun\" \"1\"\n"
      "\"mangle\" \"0 -60 0\"\n}\n"  // 6: a sun
      "{\n\"classname\" \"light\"\n\"origin\" \"0 0 0\"\n\"light\" \"200 100 50 77\"\n}\n"  // 7: HL
      "{\n\"classname\" \"light\"\n\"origin\" \"0 0 0\"\n\"delay\" \"9\"\n}\n";  // 8: bad delay
  const q::MapLights m = q::read_lights(q::parse_quake_map(text, "lights.map"));
  ASSERT_EQ(m.lights.size(), 6u);
  EXPECT_EQ(m.global_anglescale, 0.8);
  const q::PointLight& d = m.lights[0];
  EXPECT_EQ(d.light, 300);
  EXPECT_EQ(d.color, (q::Rgb{255, 255, 255}));
  EXPECT_EQ(d.wait, 1);
  EXPECT_EQ(d.formula, q::Attenuation::linear);
  EXPECT_EQ(d.anglescale, 0.8);
  EXPECT_FALSE(d.spotlight);
  EXPECT_EQ(d.where.line, 10);

  const q::PointLight& t = m.lights[1];
  EXPECT_EQ(t.light, 200);
  EXPECT_EQ(t.color, (q::Rgb{255, 127.5, 0}));  // 0..1 form, any number of underscores
  EXPECT_EQ(t.wait, 1);                         // <= 0 means 1
  EXPECT_EQ(t.formula, q::Attenuation::inverse);
  EXPECT_EQ(t.falloff, 0);  // only for linear lights
  EXPECT_EQ(t.anglescale, 0.25);

  const q::PointLight& s = m.lights[2];
  EXPECT_TRUE(s.spotlight);
  EXPECT_EQ(s.spot_direction, (Vec3{0, 0, -1}));
  EXPECT_EQ(s.cone_angle, 60);
  EXPECT_EQ(s.soft_angle, 30);

  const q::PointLight& mg = m.lights[3];
  EXPECT_TRUE(mg.spotlight);
  EXPECT_NEAR(mg.spot_direction.z, 1, 1e-12);  // pitch 90: straight up
  EXPECT_EQ(mg.cone_angle, 30);                // _cone is the half angle
  EXPECT_EQ(mg.soft_angle, 30);                // larger than the cone: no soft edge

  const q::PointLight& hl = m.lights[4];
  EXPECT_EQ(hl.light, 77);
  EXPECT_EQ(hl.color, (q::Rgb{200, 100, 50}));
  EXPECT_EQ(m.lights[5].light, 0);   // unknown delay disables the light
  ASSERT_EQ(m.warnings.size(), 2u);  // _falloff on a 1/x light, delay 9
  EXPECT_NE(m.warnings[1].find("lights.map:"), std::string::npos);

  ASSERT_EQ(m.suns.size(), 2u);
  EXPECT_EQ(m.suns[0].light, 150);
  EXPECT_EQ(m.suns[0].color, (q::Rgb{255, 128, 0}));
  EXPECT_NEAR(m.suns[0].direction.x, 0, 1e-12);
  EXPECT_NEAR(m.suns[0].direction.y, std::cos(30 * std::numbers::pi / 180), 1e-12);
  EXPECT_NEAR(m.suns[0].direction.z, -0.5, 1e-12);
  EXPECT_EQ(m.suns[1].light, 50);
  EXPECT_NEAR(m.suns[1].direction.z, -std::sin(60 * std::numbers::pi / 180), 1e-12);
  ASSERT_EQ(m.domes.size(), 1u);
  EXPECT_EQ(m.domes[0].color, (q::Rgb{127.5, 127.5, 255}));
}

TEST(LightEntities, SunEntityWithoutDirectionAimsAtTheOrigin) {
  // ericw: a "_sun" light with neither target nor a non-zero mangle shines towards (0 0 0).
  const std::string text =
      "{\n\"classname\" \"worldspawn\"\n}\n"
      "{\n\"classname\" \"light\"\n\"origin\" \"0 0 100\"\n\"_sun\" \"1\"\n\"mangle\" \"0 0 "
      "0\"\n}\n";
  const q::MapLights m = q::read_lights(q::parse_quake_map(text, "sun.map"));
  ASSERT_EQ(m.suns.size(), 1u);
  EXPECT_EQ(m.suns[0].direction, (Vec3{0, 0, -1}));
  EXPECT_EQ(m.suns[0].light, 300);
  EXPECT_TRUE(m.lights.empty());
}

TEST(LightEntities, SunAndSkyDomeValues) {
  q::Sun sun{q::normalize({0, 0, -1}), 100, {255, 255, 255}, 0.5};
  EXPECT_DOUBLE_EQ(q::sun_value(sun, {0, 0, 1}), 100);
  EXPECT_DOUBLE_EQ(q::sun_value(sun, {1, 0, 0}), 50);  // grazing: (1 - anglescale)
  EXPECT_EQ(q::sun_value(sun, {0, 0, -1}), 0);         // facing away
  // ericw's dome for 64 sun samples: 4 elevation rings x 16 azimuths + the zenith = 65 suns
  // sharing the light evenly, all shining downwards.
  const auto suns = q::sky_dome_suns({130, {255, 255, 255}, 0.5, true});
  ASSERT_EQ(suns.size(), 65u);
  double total = 0;
  for (const auto& s : suns) {
    total += s.light;
    EXPECT_LT(s.direction.z, 0);
    EXPECT_NEAR(q::length(s.direction), 1, 1e-12);
  }
  EXPECT_NEAR(total, 130, 1e-9);
  EXPECT_NEAR(suns.front().direction.z, -std::sin(9 * std::numbers::pi / 180), 1e-12);
  EXPECT_GT(q::sky_dome_suns({130, {}, 0.5, false}).front().direction.z, 0);
}

// --- albedo ------------------------------------------------------------------------------

TEST(TextureAlbedo, TableAndSurfaceKinds) {
  EXPECT_EQ(q::surface_kind("clip"), q::SurfaceKind::brush_removed);
  EXPECT_EQ(q::surface_kind("HINT"), q::SurfaceKind::brush_removed);
  EXPECT_EQ(q::surface_kind("skip"), q::SurfaceKind::face_removed);
  EXPECT_EQ(q::surface_kind("trigger"), q::SurfaceKind::face_removed);
  EXPECT_EQ(q::surface_kind("sky_dev_day"), q::SurfaceKind::sky);
  EXPECT_EQ(q::surface_kind("*soul_drain"), q::SurfaceKind::liquid);
  EXPECT_EQ(q::surface_kind("{char_trans"), q::SurfaceKind::solid);
  EXPECT_EQ(q::surface_kind("+0button"), q::SurfaceKind::solid);
  EXPECT_EQ(q::texture_albedo("sky_void"), (q::Rgb{0, 0, 0}));
  EXPECT_EQ(q::texture_albedo("wall_grey_b"), (q::Rgb{0.5, 0.5, 0.5}));
  EXPECT_EQ(q::texture_albedo("FLOOR_YELLOW_C"), (q::Rgb{0.65, 0.58, 0.22}));
  EXPECT_EQ(q::texture_albedo("met_brn_stile"), (q::Rgb{0.40, 0.28, 0.18}));
  EXPECT_EQ(q::texture_albedo("met_mix_diam"), (q::Rgb{0.40, 0.40, 0.42}));
  EXPECT_EQ(q::texture_albedo("*lava1"), (q::Rgb{0.60, 0.25, 0.10}));
  EXPECT_EQ(q::texture_albedo("*04water"), (q::Rgb{0.25, 0.35, 0.45}));
  EXPECT_EQ(q::texture_albedo("flat_01_p"), q::kDefaultAlbedo);
  EXPECT_EQ(q::texture_albedo("+1wall_blue_a"), (q::Rgb{0.18, 0.28, 0.60}));
}
