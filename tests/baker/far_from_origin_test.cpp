// Far from the origin (issue 53): a scene read from a file bakes the same wherever it sits,
// up to 1e7 units out, where a float's ulp is 1 and float positions would lose the Cornell box
// (5.6 units across) altogether; and `--obj` writes it back where it was.
#include <gtest/gtest.h>

#include <array>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "baker/integrate/bake.hpp"
#include "baker/integrate/obj_export.hpp"
#include "baker/sampling/default_mixer4.hpp"
#include "baker/scene/cornell_box.hpp"
#include "baker/load/scene_source.hpp"
#include "support/process.hpp"

using namespace mixforge::baker;
namespace fs = std::filesystem;

namespace {

using Shift = std::array<double, 3>;

std::string exact(double v) {  // the shortest text that reads back as v
  char buf[32];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, end);
}

// The built-in Cornell box as the OBJ a user would have of it moved by `shift`: each
// coordinate the box's float plus the shift, in double.
fs::path cornell_obj(const fs::path& dir, Shift shift) {
  const Scene box = cornell_box();
  std::ofstream mtl(dir / "cornell.mtl");
  for (const Material& m : box.materials)
    mtl << "newmtl " << m.name << "\nKd " << m.albedo.x << " " << m.albedo.y << " " << m.albedo.z << "\nKe "
        << m.emission.x << " " << m.emission.y << " " << m.emission.z << "\n";
  std::ofstream obj(dir / "cornell.obj");
  obj << "mtllib cornell.mtl\n";
  for (const Triangle& t : box.triangles) {
    obj << "usemtl " << box.materials[t.material].name << "\n";
    for (const Vec3& v : t.v)
      obj << "v " << exact(v.x + shift[0]) << " " << exact(v.y + shift[1]) << " " << exact(v.z + shift[2]) << "\n";
    obj << "f -3 -2 -1\n";
  }
  return dir / "cornell.obj";
}

BakeOutput bake_small(const Scene& scene) {
  BakeConfig c;
  c.spp = 16;
  c.bounces = 1;
  c.texel = 0.2f;
  c.preview_width = c.preview_height = 32;
  return bake(scene, c, default_mixer4());
}

}  // namespace

// The Cornell box at the origin, 1e6 and 1e7 units out (along x and y, back along z), and
// there again with fractions of a unit added (no round numbers): every lightmap has the same
// size, its mean the same within 0.5 % in each channel and the RMSE of the texels within
// 0.5 % of the mean. Float positions moved the mean by +11 % at 1e6 and made it black at 1e7
// (bench/results/bake/far_from_origin/).
TEST(FarFromTheOrigin, TheCornellBoxBakesTheSameOneAndTenMillionUnitsOut) {
  const mixforge::test::TempDir scratch("far-from-origin");
  const auto load = [&](const std::string& name, Shift shift) {
    fs::create_directories(scratch / name);
    return load_scene(cornell_obj(scratch / name, shift).string());
  };
  const BakeOutput at_origin = bake_small(load("origin", {0, 0, 0}));
  const Lightmap& want = at_origin.result.lightmap;
  Vec3 want_mean{};
  for (const AtlasTexel& t : at_origin.atlas.texels) want_mean += want.at(t.x, t.y);
  want_mean = want_mean / float(at_origin.atlas.texels.size());
  ASSERT_GT(want_mean.z, 0.01f);

  for (const Shift shift : {Shift{1e6, 1e6, -1e6}, Shift{1e7, 1e7, -1e7}, Shift{1e6 + 0.371, 1e6 - 0.613, -1e6 - 0.293},
                            Shift{1e7 + 0.371, 1e7 - 0.613, -1e7 - 0.293}}) {
    const std::string name = exact(shift[0]) + "_" + exact(shift[1]) + "_" + exact(shift[2]);
    SCOPED_TRACE("moved by " + name);
    const BakeOutput moved = bake_small(load(name, shift));
    const Lightmap& got = moved.result.lightmap;
    ASSERT_EQ(got.width, want.width);
    ASSERT_EQ(got.height, want.height);
    ASSERT_EQ(moved.atlas.texels.size(), at_origin.atlas.texels.size());
    Vec3 mean{};
    double squares = 0;
    for (const AtlasTexel& t : moved.atlas.texels) {
      const Vec3 v = got.at(t.x, t.y);
      mean += v;
      const Vec3 d = v - want.at(t.x, t.y);
      squares += double(d.x) * d.x + double(d.y) * d.y + double(d.z) * d.z;
    }
    mean = mean / float(moved.atlas.texels.size());
    const double rmse = std::sqrt(squares / (3.0 * moved.atlas.texels.size()));
    for (int c = 0; c < 3; ++c) EXPECT_NEAR(mean[c], want_mean[c], 0.005 * want_mean[c]) << "channel " << c;
    RecordProperty("rmse_over_mean_" + name, std::to_string(rmse / want_mean.x));
    EXPECT_LE(rmse, 0.005 * want_mean.x) << "mean " << mean.x << " " << mean.y << " " << mean.z;
  }
}

// `mixforge bake --obj` of a scene 1e7 units out writes each vertex where the scene's file put
// it (within 1e-6 units), not rounded to the float grid there (ulp 1).
TEST(FarFromTheOrigin, ObjOutputPutsTheSceneBackWhereItWas) {
  const mixforge::test::TempDir scratch("far-from-origin-obj");
  const Shift shift{1e7 + 0.371, 1e7 - 0.613, -1e7 - 0.293};
  const Scene scene = load_scene(cornell_obj(scratch.path(), shift).string());
  AtlasOptions ao;
  ao.texel_size = 0.2f;
  fs::create_directories(scratch / "out");
  write_obj(scene, build_atlas(scene, ao), scratch / "out");

  const Scene box = cornell_box();
  std::ifstream in(scratch / "out" / "lightmap.obj");
  std::size_t vertex = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("v ", 0) != 0) continue;
    ASSERT_LT(vertex, 3 * box.triangles.size());
    const Vec3 v = box.triangles[vertex / 3].v[vertex % 3];
    std::istringstream xyz(line.substr(2));
    double x = 0, y = 0, z = 0;
    xyz >> x >> y >> z;
    EXPECT_NEAR(x, v.x + shift[0], 1e-6) << line;
    EXPECT_NEAR(y, v.y + shift[1], 1e-6) << line;
    EXPECT_NEAR(z, v.z + shift[2], 1e-6) << line;
    ++vertex;
  }
  EXPECT_EQ(vertex, 3 * box.triangles.size());
}
