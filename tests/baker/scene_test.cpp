// Scenes: the built-in Cornell box, OBJ loading (MTL Kd / Ke) and its error messages.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "support/process.hpp"
#include "baker/scene/cornell_box.hpp"
#include "baker/scene/obj_scene.hpp"
#include "baker/load/scene_source.hpp"

using namespace mixforge::baker;
namespace fs = std::filesystem;

namespace {

void write(const fs::path& p, const std::string& text) { std::ofstream(p) << text; }

}  // namespace

TEST(CornellBox, PublishedGeometryAndTungstenMaterials) {
  const Scene s = cornell_box();
  validate(s);
  EXPECT_EQ(s.triangles.size(), 32u);  // 5 walls, the light, 2 blocks x 5 quads
  ASSERT_EQ(s.materials.size(), 4u);
  EXPECT_EQ(s.materials[0].albedo, (Vec3{0.725f, 0.71f, 0.68f}));
  EXPECT_EQ(s.materials[1].albedo, (Vec3{0.63f, 0.065f, 0.05f}));
  EXPECT_EQ(s.materials[2].albedo, (Vec3{0.14f, 0.45f, 0.091f}));
  EXPECT_EQ(s.materials[3].emission, (Vec3{17, 12, 4}));
  const Bounds b = bounds(s);
  EXPECT_NEAR(b.hi.x, 5.56, 1e-4);
  EXPECT_NEAR(b.hi.y, 5.488, 1e-4);
  EXPECT_NEAR(b.hi.z, 5.592, 1e-4);
  // Every room face points into the room, the light points down, blocks point out.
  const Vec3 centre{2.78f, 2.74f, 2.8f};
  for (const Triangle& t : s.triangles) {
    const Vec3 n = normalize(cross(t.v[1] - t.v[0], t.v[2] - t.v[0]));
    const Vec3 c = (t.v[0] + t.v[1] + t.v[2]) / 3.0f;
    if (t.material == 3) {
      EXPECT_LT(n.y, -0.99f);
    }
    if (t.face < 5) {
      EXPECT_GT(dot(n, centre - c), 0) << "face " << t.face;
    }
  }
}

TEST(ObjScene, ReadsPolygonsAndMaterials) {
  const mixforge::test::TempDir scratch("baker-obj");
  const fs::path d = scratch.path();
  write(d / "m.mtl", "newmtl glow\nKd 0.2 0.3 0.4\nKe 1 2 3\n");
  write(d / "s.obj",
        "mtllib m.mtl\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nusemtl glow\nf 1 2 3 4\n");
  const Scene s = load_obj(d / "s.obj");
  ASSERT_EQ(s.triangles.size(), 2u);
  EXPECT_EQ(s.triangles[0].face, s.triangles[1].face);
  const Material& m = s.materials[s.triangles[0].material];
  EXPECT_EQ(m.albedo, (Vec3{0.2f, 0.3f, 0.4f}));
  EXPECT_EQ(m.emission, (Vec3{1, 2, 3}));
  fs::remove_all(d);
}

// Two-sided materials (issue 40, part 3): `mixforge_two_sided 1` in the .mtl (a comment may
// follow it; 0 and a missing key: one-sided), each material its own.
TEST(ObjScene, TheMtlKeyMixforgeTwoSidedMakesAMaterialTwoSided) {
  const mixforge::test::TempDir scratch("baker-objtwosided");
  const fs::path d = scratch.path();
  write(d / "m.mtl",
        "newmtl leaf\nKd 0.2 0.6 0.2\nmixforge_two_sided 1 # both sides\r\n"
        "newmtl wall\nKd 0.5 0.5 0.5\nmixforge_two_sided 0\nnewmtl sign\nKd 0.5 0.5 0.5\n");
  write(d / "s.obj", "mtllib m.mtl\nv 0 0 0\nv 1 0 0\nv 1 1 0\nusemtl leaf\nf 1 2 3\nusemtl wall\nf 1 2 3\n"
                     "usemtl sign\nf 1 2 3\n");
  const Scene s = load_obj(d / "s.obj");
  ASSERT_EQ(s.triangles.size(), 3u);
  const auto& m = s.materials;
  EXPECT_EQ(m[s.triangles[0].material].name, "leaf");
  EXPECT_TRUE(m[s.triangles[0].material].two_sided);
  EXPECT_FALSE(m[s.triangles[1].material].two_sided);
  EXPECT_FALSE(m[s.triangles[2].material].two_sided);
  EXPECT_EQ(m[s.triangles[0].material].albedo, (Vec3{0.2f, 0.6f, 0.2f}));
  fs::remove_all(d);
}

TEST(ObjScene, ErrorsNameTheFileAndLine) {
  const mixforge::test::TempDir scratch("baker-objbad");
  const fs::path d = scratch.path();
  write(d / "bad.obj", "v 0 0 0\nv 1 0 0\nv 1 1 0\nf 1 2 0\n");
  try {
    load_obj(d / "bad.obj");
    FAIL() << "no error";
  } catch (const SceneError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find((d / "bad.obj").string() + ":4:"), std::string::npos) << what;
  }
  EXPECT_THROW(load_obj(d / "missing.obj"), SceneError);
  write(d / "empty.obj", "# nothing\n");
  EXPECT_THROW(load_obj(d / "empty.obj"), SceneError);
  fs::remove_all(d);
}

// Found by exploratory testing: tinyobjloader read these as 0 or as whatever its parser made
// of them (exit 0), or they failed without a line. Each must fail with file:line:column.
TEST(ObjScene, MalformedNumbersAndFacesNameLineAndColumn) {
  const mixforge::test::TempDir scratch("baker-objmalformed");
  const fs::path d = scratch.path();
  const std::string tri = "v 0 0 0\nv 1 0 0\nv 0 1 0\n";
  const struct {
    std::string obj, mtl, where, says;
  } cases[] = {
      {"v 0 0 0\nv 1 0 zz\nv 0 1 0\nf 1 2 3\n", "", ":2:7: ", "'zz' is not a number"},
      {"v 0 0 0\nv 1 0 nan\nv 0 1 0\nf 1 2 3\n", "", ":2:7: ", "not finite"},
      {"v 0 0 0\nv 1e39 0 0\nv 0 1 0\nf 1 2 3\n", "", ":2:3: ", "out of the float range"},
      {tri + "f 1 2 99999999999999999999\n", "", ":4:7: ", "out of range"},
      {tri + "f 1 2 3x\n", "", ":4:7: ", "'3x' is not an index"},
      {tri + "f 1 2 9\n", "", ":4:7: ", "vertex index 9 is out of range (3 in the file)"},
      {tri + "f 1 2 -4\n", "", ":4:7: ", "out of range"},
      {tri + "f 1 2\n", "", ":4:1: ", "a face needs at least 3 vertices, got 2"},
      {"v 0 0\nf 1 1 1\n", "", ":1:1: ", "v needs 3 coordinates, got 2"},
      {"mtllib m.mtl\n" + tri + "usemtl m\nf 2 3 4\n", "newmtl m\nKd 0.5 zz 0.5\n", "m.mtl:2:8: ", "'zz' is not a number"},
      {"mtllib m.mtl\n" + tri + "usemtl m\nf 2 3 4\n", "newmtl m\nKe 1 1\n", "m.mtl:2:1: ", "Ke takes 3 numbers"},
      // The two-sided key (issue 40, part 3): 0 or 1, once per material.
      {"mtllib m.mtl\n" + tri + "usemtl m\nf 2 3 4\n", "newmtl m\nmixforge_two_sided 2\n", "m.mtl:2:20: ",
       "mixforge_two_sided takes 0 or 1, got '2'"},
      {"mtllib m.mtl\n" + tri + "usemtl m\nf 2 3 4\n", "newmtl m\nmixforge_two_sided yes\n", "m.mtl:2:20: ",
       "takes 0 or 1, got 'yes'"},
      {"mtllib m.mtl\n" + tri + "usemtl m\nf 2 3 4\n", "newmtl m\nmixforge_two_sided\n", "m.mtl:2:1: ",
       "takes 0 or 1, got nothing"},
      {"mtllib m.mtl\n" + tri + "usemtl m\nf 2 3 4\n", "newmtl m\nmixforge_two_sided 1 1\n", "m.mtl:2:22: ",
       "takes one value"},
      {"mtllib m.mtl\n" + tri + "usemtl m\nf 2 3 4\n", "newmtl m\nmixforge_two_sided 1\nmixforge_two_sided 0\n",
       "m.mtl:3:1: ", "given twice for one material (first on line 2)"},
  };
  for (const auto& c : cases) {
    fs::remove(d / "m.mtl");
    write(d / "s.obj", c.obj);
    if (!c.mtl.empty()) write(d / "m.mtl", c.mtl);
    try {
      load_obj(d / "s.obj");
      ADD_FAILURE() << "no error for:\n" << c.obj << c.mtl;
    } catch (const SceneError& e) {
      const std::string what = e.what();
      const std::string file = c.where.rfind("m.mtl", 0) == 0 ? (d / "m.mtl").string() + c.where.substr(5)
                                                              : (d / "s.obj").string() + c.where;
      EXPECT_EQ(what.rfind(file, 0), 0u) << what;
      EXPECT_NE(what.find(c.says), std::string::npos) << what;
    }
  }
  // What is valid still loads: v//vn and v/vt/vn corners, negative indices, comments, CRLF.
  write(d / "s.obj", "v 0 0 0\r\nv 1 0 0 # a comment\r\nv 0 1 0\r\nvt 0 0\r\nvn 0 0 1\r\n"
                     "f 1/1/1 2/1/1 3/1/1\r\nf -3//1 -2//1 -1//1\r\n");
  EXPECT_EQ(load_obj(d / "s.obj").triangles.size(), 2u);
  fs::remove_all(d);
}

TEST(SceneSource, NamesAndErrors) {
  EXPECT_EQ(load_scene("cornell").triangles.size(), 32u);
  EXPECT_THROW(load_scene("nowhere.map"), SceneError);
  EXPECT_THROW(load_scene("teapot"), SceneError);
}

// .map files reach the baker through the Quake adapter: geometry, lights, a valid scene.
TEST(SceneSource, QuakeMapsLoadIntoValidScenes) {
  const Scene s = load_scene(std::string(MIXFORGE_SOURCE_DIR) + "/baker/scenes/librequake/lqdm1.map");
  EXPECT_GT(s.triangles.size(), 1000u);
  EXPECT_NO_THROW(validate(s));
}

TEST(Scene, ValidateNamesTheProblem) {
  Scene s = cornell_box();
  s.materials[0].albedo = {1.2f, 0, 0};
  try {
    validate(s);
    FAIL();
  } catch (const SceneError& e) {
    EXPECT_NE(std::string(e.what()).find("material 0"), std::string::npos);
  }
  s = cornell_box();
  s.triangles[3].material = 9;
  EXPECT_THROW(validate(s), SceneError);
}
