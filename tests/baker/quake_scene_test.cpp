// The .map -> baker::Scene adapter: geometry kept and left out, light unit conversion.
#include "baker/quake/quake_scene.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <numbers>
#include <set>

#include "baker/quake/light_entities.hpp"
#include "baker/quake/texture_albedo.hpp"

namespace q = mixforge::quake;
namespace b = mixforge::baker;

namespace {

const std::filesystem::path kScenes =
    std::filesystem::path(MIXFORGE_SOURCE_DIR) / "baker/scenes/librequake";

// An axis-aligned box brush with one texture per side (-x, +x, -y, +y, -z, +z).
std::string box(int x0, int y0, int z0, int x1, int y1, int z1, std::array<const char*, 6> tex) {
  char buf[1024];
  std::snprintf(buf, sizeof buf,
                "{\n"
                "( %d %d %d ) ( %d %d %d ) ( %d %d %d ) %s 0 0 0 1 1\n"
                "( %d %d %d ) ( %d %d %d ) ( %d %d %d ) %s 0 0 0 1 1\n"
                "( %d %d %d ) ( %d %d %d ) ( %d %d %d ) %s 0 0 0 1 1\n"
                "( %d %d %d ) ( %d %d %d ) ( %d %d %d ) %s 0 0 0 1 1\n"
                "( %d %d %d ) ( %d %d %d ) ( %d %d %d ) %s 0 0 0 1 1\n"
                "( %d %d %d ) ( %d %d %d ) ( %d %d %d ) %s 0 0 0 1 1\n"
                "}\n",
                x0, y0, z0, x0, y0 + 1, z0, x0, y0, z0 + 1, tex[0],   // -x
                x1, y1, z1, x1, y1, z1 + 1, x1, y1 + 1, z1, tex[1],   // +x
                x0, y0, z0, x0, y0, z0 + 1, x0 + 1, y0, z0, tex[2],   // -y
                x1, y1, z1, x1 + 1, y1, z1, x1, y1, z1 + 1, tex[3],   // +y
                x0, y0, z0, x0 + 1, y0, z0, x0, y0 + 1, z0, tex[4],   // -z
                x1, y1, z1, x1, y1 + 1, z1, x1 + 1, y1, z1, tex[5]);  // +z
  return buf;
}

std::array<const char*, 6> all(const char* t) { return {t, t, t, t, t, t}; }

const char* kRoom =
    "{\n\"classname\" \"worldspawn\"\n\"_sunlight\" \"200\"\n\"_sun_mangle\" \"0 -60 0\"\n"
    "\"_sunlight_color\" \"255 128 0\"\n\"_sunlight2\" \"100\"\n\"light\" \"20\"\n";

q::QuakeScene room_scene(const std::string& extra_entities) {
  std::string text = kRoom;
  text += box(0, 0, -16, 256, 256, 0, all("floor_yellow_c"));  // floor, top at z = 0
  text += box(0, 0, 256, 256, 256, 272, all("sky_day"));       // sky lid
  text += box(0, 0, 0, 16, 16, 64, all("clip"));               // clip brush
  text += box(32, 32, 0, 64, 64, 32,
              {"wall_red_a", "wall_red_a", "wall_red_a", "wall_red_a", "skip",
               "wall_red_a"});  // a crate with a skip bottom
  text +=
      box(100, 100, -8, 150, 150, 0, {"*water", "*water", "*water", "*water", "*water", "*water"});
  text += "}\n";
  text += "{\n\"classname\" \"func_door\"\n" + box(200, 200, 0, 210, 210, 100, all("door")) + "}\n";
  text += extra_entities;
  return q::to_scene(q::parse_quake_map(text, "room.map"));
}

b::Vec3 normal_of(const b::Triangle& t) {
  return b::normalize(b::cross(t.v[1] - t.v[0], t.v[2] - t.v[0]));
}

// The baker's direct light at a surface point, irradiance / pi, unoccluded (its integrator's
// point-light formula: I cos / d^2, over pi).
double baker_point(const b::Light& l, b::Vec3 p, b::Vec3 n, int channel) {
  const b::Vec3 d = l.position - p;
  const double dist = b::length(d);
  if (l.range > 0 && dist > l.range) return 0;
  const double c = b::dot(d, n) / dist;
  return l.intensity[channel] * c / (dist * dist) / std::numbers::pi;
}

}  // namespace

TEST(QuakeScene, GeometryKeepsDrawnFacesOnly) {
  const q::QuakeScene s = room_scene("");
  // Floor: 6 sides; crate: 5 (skip bottom gone); sky lid: 6 sky windows (no texels); clip
  // brush, water, door: none.
  EXPECT_EQ(s.faces, 11u);
  EXPECT_EQ(s.sky_faces, 6u);
  EXPECT_EQ(s.brushes, 3u);
  EXPECT_EQ(s.scene.triangles.size(), 34u);  // each rectangle fans into two triangles
  std::set<std::string> names;
  for (const auto& m : s.scene.materials) {
    names.insert(m.name);
    EXPECT_EQ(m.sky, m.name == "sky_day") << m.name;
  }
  EXPECT_EQ(names, (std::set<std::string>{"floor_yellow_c", "wall_red_a", "sky_day"}));
  std::map<std::int64_t, int> per_face;
  for (const auto& t : s.scene.triangles) {
    ++per_face[t.face];
    EXPECT_LT(t.material, s.scene.materials.size());
    EXPECT_FALSE(t.uv2.has_value());
  }
  EXPECT_EQ(per_face.size(), 17u);
  for (const auto& [face, n] : per_face) EXPECT_EQ(n, 2) << face;
  // The floor's top side (z = 0) winds counter-clockwise seen from above: its normal is +z.
  bool found_top = false;
  for (const auto& t : s.scene.triangles) {
    if (t.v[0].z == 0 && t.v[1].z == 0 && t.v[2].z == 0 && t.v[0].x <= 256 &&
        s.scene.materials[t.material].name == "floor_yellow_c") {
      EXPECT_NEAR(normal_of(t).z, 1, 1e-6);
      found_top = true;
    }
  }
  EXPECT_TRUE(found_top);
  const auto& red = s.scene.materials[s.scene.triangles.back().material];
  EXPECT_EQ(red.name, "wall_red_a");
  EXPECT_FLOAT_EQ(red.albedo.x, 0.60f);
  // Liquids can be kept on request.
  q::QuakeSceneOptions with_water;
  with_water.include_liquids = true;
  std::string text = kRoom;
  text += box(100, 100, -8, 150, 150, 0, all("*water")) + "}\n";
  EXPECT_EQ(q::to_scene(q::parse_quake_map(text, "w.map"), with_water).faces, 6u);
}

namespace {

// Area of the triangles of material `name` lying in the plane dot(n, x) = d.
double area_in_plane(const q::QuakeScene& s, const char* name, b::Vec3 n, float d) {
  double area = 0;
  for (const auto& t : s.scene.triangles) {
    if (s.scene.materials[t.material].name != name) continue;
    const b::Vec3 c = b::cross(t.v[1] - t.v[0], t.v[2] - t.v[0]);
    if (b::dot(b::normalize(c), n) < 0.999f) continue;
    if (std::fabs(b::dot(t.v[0], n) - d) > 1e-3f) continue;
    area += 0.5 * b::length(c);
  }
  return area;
}

// Triangles whose front side, just off their centroid, lies inside a closed opaque brush
// (every face solid or sky, none a fence '{' texture): a face hidden there.
std::size_t triangles_facing_into_brushes(const q::QuakeMap& map, const q::QuakeScene& s) {
  std::vector<q::Brush> solid;
  for (q::Brush& brush : q::build_brushes(map)) {
    bool opaque = true;
    for (const auto& f : brush.faces)
      opaque &= (q::surface_kind(f.texture) == q::SurfaceKind::solid ||
                 q::surface_kind(f.texture) == q::SurfaceKind::sky) &&
                f.texture[0] != '{';
    if (opaque) solid.push_back(std::move(brush));
  }
  std::size_t inside = 0;
  for (const auto& t : s.scene.triangles) {
    const b::Vec3 c = (t.v[0] + t.v[1] + t.v[2]) * (1.0f / 3);
    const b::Vec3 p = c + normal_of(t) * 0.05f;
    const q::Vec3 x{p.x, p.y, p.z};
    for (const q::Brush& brush : solid) {
      bool in = true;
      for (const auto& f : brush.faces) in &= q::dot(f.normal, x) - f.distance < -0.01;
      if (in) {
        ++inside;
        break;
      }
    }
  }
  return inside;
}

}  // namespace

// qbsp's CSG: a face part inside another closed opaque brush, or against one back to back,
// is not a surface; the loader used to bake every brush face (black texels bleeding into
// visible ones, and back-to-back faces that the two back ends tie differently).
TEST(QuakeScene, FacesHiddenBetweenTouchingBrushesAreLeftOut) {
  std::string text = "{\n\"classname\" \"worldspawn\"\n";
  text += box(0, 0, -16, 256, 128, 0, all("floor"));
  text += box(124, 0, 0, 132, 128, 128, all("wall"));  // stands on the floor, cuts it in two
  text += box(16, 16, 0, 48, 48, 32, all("crate"));    // on the floor ...
  text += box(48, 16, 0, 80, 48, 32, all("crate"));    // ... back to back with the first
  text += box(160, 32, 0, 224, 96, 8, all("step"));    // two overlapping steps:
  text += box(192, 32, 0, 240, 96, 8, all("step"));    // the later one's faces are kept
  text += box(96, 16, 0, 112, 32, 16, all("{grate"));  // a fence hides only fences:
  text += box(96, 32, 0, 112, 48, 16, all("{grate"));  // the two touching sides go
  text += "}\n";
  const q::QuakeMap map = q::parse_quake_map(text, "touch.map");
  const q::QuakeScene s = q::to_scene(map);
  // Floor top: 256 x 128 less the wall (8 x 128), both crates (64 x 32) and the steps'
  // union (80 x 64); the grates' footprint stays.
  EXPECT_NEAR(area_in_plane(s, "floor", {0, 0, 1}, 0), 256.0 * 128 - 8 * 128 - 64 * 32 - 80 * 64,
              1e-2);
  EXPECT_NEAR(area_in_plane(s, "crate", {0, 0, -1}, 0), 0, 1e-9);  // bottoms
  EXPECT_NEAR(area_in_plane(s, "crate", {1, 0, 0}, 48), 0, 1e-9);  // back to back
  EXPECT_NEAR(area_in_plane(s, "crate", {-1, 0, 0}, -48), 0, 1e-9);
  EXPECT_NEAR(area_in_plane(s, "wall", {0, 0, -1}, 0), 0, 1e-9);
  EXPECT_NEAR(area_in_plane(s, "{grate", {0, 0, -1}, 0), 0, 1e-9);  // the floor hides them
  EXPECT_NEAR(area_in_plane(s, "{grate", {0, 1, 0}, 32), 0, 1e-9);
  EXPECT_NEAR(area_in_plane(s, "{grate", {0, -1, 0}, -32), 0, 1e-9);
  EXPECT_NEAR(area_in_plane(s, "{grate", {0, -1, 0}, -16), 16.0 * 16, 1e-9);
  // The steps' tops cover their union once (64 x 64 + 48 x 64 if both were kept).
  EXPECT_NEAR(area_in_plane(s, "step", {0, 0, 1}, 8), 80.0 * 64, 1e-2);
  EXPECT_NEAR(area_in_plane(s, "step", {0, -1, 0}, -32), 80.0 * 8, 1e-2);
  // Hidden: 2 crate bottoms, 2 crate sides, the wall's bottom, 2 step bottoms, the steps'
  // sides inside each other, the grates' bottoms and touching sides. Cut: the floor top, the
  // first step's top and its two long sides.
  EXPECT_EQ(s.hidden_faces, 13u);
  EXPECT_EQ(s.cut_faces, 4u);
  EXPECT_EQ(triangles_facing_into_brushes(map, s), 0u);
  // The floor top, cut in two by the wall, is two faces (two charts: no bilinear read or
  // dilation across the wall); the crates' hole leaves the left one in one piece.
  std::set<std::int64_t> floor_top;
  for (const auto& t : s.scene.triangles)
    if (s.scene.materials[t.material].name == "floor" && normal_of(t).z > 0.999f)
      floor_top.insert(t.face);
  EXPECT_EQ(floor_top.size(), 2u);
  bool noted = false;
  for (const auto& n : s.notes)
    noted |= n.find("13 faces hidden between touching brushes") != std::string::npos;
  EXPECT_TRUE(noted);
  // The LibreQuake maps: no face left facing into a brush.
  for (const char* file : {"end.map", "slope.map", "lqdm1.map"}) {
    SCOPED_TRACE(file);
    const q::QuakeMap m = q::read_quake_map(kScenes / file);
    EXPECT_EQ(triangles_facing_into_brushes(m, q::to_scene(m)), 0u);
  }
}

TEST(QuakeScene, InverseSquareLightsConvertExactly) {
  const q::QuakeScene s = room_scene(
      "{\n\"classname\" \"light\"\n\"origin\" \"128 128 96\"\n\"light\" \"120\"\n"
      "\"wait\" \"0.7\"\n\"delay\" \"2\"\n\"_color\" \"255 128 64\"\n}\n");
  const auto lights = q::read_lights(q::parse_quake_map(
      std::string(kRoom) +
          "}\n{\n\"classname\" \"light\"\n\"origin\" \"128 128 96\"\n\"light\" \"120\"\n\"wait\" "
          "\"0.7\"\n\"delay\" \"2\"\n\"_color\" \"255 128 64\"\n}\n",
      "x.map"));
  ASSERT_EQ(lights.lights.size(), 1u);
  q::PointLight ericw = lights.lights[0];
  ericw.anglescale = 1;  // the baker is Lambertian
  const b::Light* point = nullptr;
  for (const auto& l : s.scene.lights)
    if (l.kind == b::LightKind::point) point = &l;
  ASSERT_NE(point, nullptr);
  EXPECT_EQ(point->range, 0);
  // At several floor points: baker lightmap == ericw value / 128, channel by channel.
  for (double x : {128.0, 60.0, 0.0, 250.0}) {
    const q::Rgb e = q::light_color_at(ericw, {x, 90, 0}, {0, 0, 1});
    const b::Vec3 p{static_cast<float>(x), 90, 0};
    EXPECT_NEAR(baker_point(*point, p, {0, 0, 1}, 0), e.r / 128, 1e-4 * e.r / 128) << x;
    EXPECT_NEAR(baker_point(*point, p, {0, 0, 1}, 1), e.g / 128, 1e-4 * e.g / 128) << x;
    EXPECT_NEAR(baker_point(*point, p, {0, 0, 1}, 2), e.b / 128, 1e-4 * e.b / 128) << x;
  }
}

TEST(QuakeScene, LinearLightsMatchAtHalfRangeSpotsSunsAndSky) {
  const q::QuakeScene s = room_scene(
      "{\n\"classname\" \"light\"\n\"origin\" \"128 128 200\"\n\"light\" \"300\"\n}\n"
      "{\n\"classname\" \"light\"\n\"origin\" \"64 64 128\"\n\"mangle\" \"0 -90 0\"\n"
      "\"angle\" \"60\"\n\"_softangle\" \"20\"\n\"delay\" \"2\"\n}\n"
      "{\n\"classname\" \"light\"\n\"origin\" \"0 0 32\"\n\"delay\" \"4\"\n}\n");
  std::vector<const b::Light*> points, spots, suns, skies;
  for (const auto& l : s.scene.lights) {
    (l.kind == b::LightKind::point  ? points
     : l.kind == b::LightKind::spot ? spots
     : l.kind == b::LightKind::sun  ? suns
                                    : skies)
        .push_back(&l);
  }
  ASSERT_EQ(points.size(), 1u);  // the delay 4 light is left out (and noted)
  ASSERT_EQ(spots.size(), 1u);
  ASSERT_EQ(suns.size(), 1u);
  ASSERT_EQ(skies.size(), 1u);

  // Linear, light 300, wait 1: range 300, matched at 150 where ericw gives 150.
  EXPECT_FLOAT_EQ(points[0]->range, 300);
  const b::Vec3 below{128, 128, 50};  // 150 under the light
  EXPECT_NEAR(baker_point(*points[0], below, {0, 0, 1}, 0), 150.0 / 128, 1e-5);
  EXPECT_EQ(baker_point(*points[0], {128, 128, -101}, {0, 0, 1}, 0), 0);  // beyond the range

  EXPECT_NEAR(spots[0]->direction.z, -1, 1e-6);
  EXPECT_NEAR(spots[0]->cone_outer, std::cos(30 * std::numbers::pi / 180), 1e-6);
  EXPECT_NEAR(spots[0]->cone_inner, std::cos(10 * std::numbers::pi / 180), 1e-6);

  // Sun: the baker's E cos / pi equals ericw's L cos / 128 (anglescale 1), per channel.
  const q::Sun ericw_sun{q::direction_from_mangle(0, -60), 200, {255, 128, 0}, 1};
  const double cos_floor = std::sin(60 * std::numbers::pi / 180);
  EXPECT_NEAR(suns[0]->direction.z, -cos_floor, 1e-6);
  EXPECT_NEAR(suns[0]->intensity.x * cos_floor / std::numbers::pi,
              q::sun_value(ericw_sun, {0, 0, 1}) / 128, 1e-5);
  EXPECT_NEAR(suns[0]->intensity.y * cos_floor / std::numbers::pi,
              q::sun_value(ericw_sun, {0, 0, 1}) * 128 / 255 / 128, 1e-5);

  // Sky: an open floor under a uniform sky of radiance R has lightmap R; ericw's dome of
  // 65 suns (anglescale 1) gives sum(L/65 cos_i) / 128.
  double ericw_dome = 0;
  for (auto sun : q::sky_dome_suns({100, {255, 255, 255}, 1, true}))
    ericw_dome += q::sun_value(sun, {0, 0, 1});
  EXPECT_NEAR(skies[0]->intensity.x, ericw_dome / 128, 1e-5);

  bool noted_minlight = false, noted_delay4 = false, noted_linear = false;
  for (const auto& n : s.notes) {
    noted_minlight |= n.find("minlight 20") != std::string::npos;
    noted_delay4 |= n.find("delay 4") != std::string::npos;
    noted_linear |= n.find("delay 0 light approximated") != std::string::npos;
  }
  EXPECT_TRUE(noted_minlight);
  EXPECT_TRUE(noted_delay4);
  EXPECT_TRUE(noted_linear);
}

TEST(QuakeScene, SurfaceLightsEmitAndCameraFromPlayerStart) {
  const q::QuakeScene s = room_scene(
      "{\n\"classname\" \"light\"\n\"origin\" \"0 0 0\"\n\"_surface\" \"wall_red_a\"\n"
      "\"light\" \"256\"\n\"_color\" \"255 0 0\"\n}\n"
      "{\n\"classname\" \"info_player_start\"\n\"origin\" \"10 20 30\"\n\"angle\" \"90\"\n}\n");
  for (const auto& m : s.scene.materials) {
    if (m.name == "wall_red_a") {
      EXPECT_FLOAT_EQ(m.emission.x, 2);  // 256 / 128
      EXPECT_FLOAT_EQ(m.emission.y, 0);
    } else {
      EXPECT_FLOAT_EQ(m.emission.x, 0);
    }
  }
  for (const auto& l : s.scene.lights) EXPECT_NE(l.kind, b::LightKind::point);
  ASSERT_TRUE(s.scene.camera.has_value());
  EXPECT_EQ(s.scene.camera->position, (b::Vec3{10, 20, 52}));
  EXPECT_NEAR(s.scene.camera->target.y - s.scene.camera->position.y, 128, 1e-4);
  EXPECT_EQ(s.scene.camera->up, (b::Vec3{0, 0, 1}));
}

TEST(QuakeScene, LibreQuakeMapsBecomeScenes) {
  struct Expected {
    const char* file;
    std::size_t brushes, drawn, hidden, sky_faces, materials, point_lights, suns, skies;
  };
  // `drawn` counted independently from the map text (tests/baker/quake_map_test.cpp's
  // method): sides of static brushes without clip/hint/origin faces, minus sky/liquid/skip
  // faces. Of those, `hidden` lie wholly inside or against other brushes (the loader's
  // count; FacesHiddenBetweenTouchingBrushesAreLeftOut checks that none that remain face
  // into a brush). A brush all of whose sides are hidden contributes nothing (slope.map has
  // one), nor does a texture all of whose faces are (end.map has one). Sky sides are sky
  // windows, counted apart (brushes and materials include the sky's).
  const Expected maps[] = {
      {"lqdm1.map", 382, 2294, 857, 0, 4, 44, 0, 0},
      {"end.map", 70, 414, 216, 2, 22, 0, 1, 1},
      {"slope.map", 102, 572, 222, 18, 19, 0, 1, 1},
  };
  for (const auto& m : maps) {
    SCOPED_TRACE(m.file);
    const q::QuakeScene s = q::to_scene(q::read_quake_map(kScenes / m.file));
    EXPECT_EQ(s.brushes, m.brushes);
    EXPECT_EQ(s.faces + s.hidden_faces, m.drawn);
    EXPECT_EQ(s.hidden_faces, m.hidden);
    EXPECT_EQ(s.sky_faces, m.sky_faces);
    EXPECT_EQ(s.scene.materials.size(), m.materials);
    std::size_t points = 0, suns = 0, skies = 0;
    for (const auto& l : s.scene.lights) {
      points += l.kind == b::LightKind::point;
      suns += l.kind == b::LightKind::sun;
      skies += l.kind == b::LightKind::sky;
      EXPECT_GE(l.intensity.x, 0);
    }
    EXPECT_EQ(points, m.point_lights);
    EXPECT_EQ(suns, m.suns);
    EXPECT_EQ(skies, m.skies);
    EXPECT_TRUE(s.scene.camera.has_value());
    EXPECT_GE(s.scene.triangles.size(), s.faces);
    for (const auto& t : s.scene.triangles) {
      EXPECT_TRUE(std::isfinite(t.v[0].x) && std::isfinite(t.v[1].y) && std::isfinite(t.v[2].z));
      EXPECT_GT(b::length(b::cross(t.v[1] - t.v[0], t.v[2] - t.v[0])), 0);
    }
  }
  // end.map's surface-light textures glow.
  const q::QuakeScene end = q::to_scene(q::read_quake_map(kScenes / "end.map"));
  std::size_t glowing = 0;
  for (const auto& m : end.scene.materials) glowing += m.emission.x > 0 || m.emission.z > 0;
  EXPECT_EQ(glowing, 2u);
}

TEST(QuakeScene, LoadErrorsAreSceneErrorsWithLocation) {
  try {
    q::load_quake_scene(std::filesystem::path(MIXFORGE_SOURCE_DIR) /
                        "tests/baker/data/maps/nan.map");
    FAIL();
  } catch (const b::SceneError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("nan.map:7:6: ", 0), 0u) << e.what();
  }
}
