// The emitter distribution of next-event estimation: only emissive triangles, picked in
// proportion to area x luminance, points uniform on the triangle; the auto choice between
// MIS and hemisphere sampling.
#include <gtest/gtest.h>

#include <cmath>

#include "baker/integrate/light_sampler.hpp"

using namespace mixforge::baker;

namespace {

// Triangle 0 is not emissive; 1 (area 0.5, white 2) and 2 (area 2, red 1) are.
Scene three_triangles() {
  Scene s;
  s.materials = {{"wall", {0.5f, 0.5f, 0.5f}, {0, 0, 0}},
                 {"white", {0.5f, 0.5f, 0.5f}, {2, 2, 2}},
                 {"red", {0.5f, 0.5f, 0.5f}, {1, 0, 0}}};
  s.triangles.push_back({{{0, 0, 0}, {10, 0, 0}, {0, 10, 0}}, 0, std::nullopt, -1});
  s.triangles.push_back({{{0, 0, 1}, {1, 0, 1}, {0, 1, 1}}, 1, std::nullopt, -1});
  s.triangles.push_back({{{0, 0, 2}, {2, 0, 2}, {0, 2, 2}}, 2, std::nullopt, -1});
  return s;
}

}  // namespace

TEST(LightSampler, PicksEmittersByPowerAndPlacesPointsUniformly) {
  const Scene s = three_triangles();
  const LightSampler lights(s);
  ASSERT_EQ(lights.size(), 2u);
  EXPECT_NEAR(lights.emissive_area_fraction(), 2.5 / 52.5, 1e-6);
  // Power: 0.5 * 2 (luminance of white 2) = 1 against 2 * 0.2126.
  const double p1 = 1.0 / (1.0 + 2 * 0.2126), p2 = 1 - p1;
  EXPECT_EQ(lights.pdf_area(0), 0.0f);
  EXPECT_NEAR(lights.pdf_area(1), p1 / 0.5, 1e-6);
  EXPECT_NEAR(lights.pdf_area(2), p2 / 2, 1e-6);

  // A 64 x 64 grid of u: the picks follow p1 : p2 and each triangle's points are uniform on
  // it (their mean is its centroid).
  const int n = 64;
  int picks[3] = {0, 0, 0};
  Vec3 mean[3];
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      const LightSample l = lights.sample({(i + 0.5f) / n, (j + 0.5f) / n});
      ASSERT_TRUE(l.triangle == 1 || l.triangle == 2);
      EXPECT_EQ(l.pdf_area, lights.pdf_area(l.triangle));
      const Triangle& t = s.triangles[l.triangle];
      EXPECT_FLOAT_EQ(l.point.z, t.v[0].z);
      EXPECT_GE(l.point.x, 0.0f);
      EXPECT_GE(l.point.y, 0.0f);
      EXPECT_LE(l.point.x + l.point.y, t.v[1].x * (1 + 1e-6f));
      ++picks[l.triangle];
      mean[l.triangle] += l.point;
    }
  EXPECT_NEAR(picks[1] / double(n * n), p1, 1.0 / n);
  for (int k : {1, 2}) {
    const Triangle& t = s.triangles[k];
    const Vec3 centroid = (t.v[0] + t.v[1] + t.v[2]) / 3.0f;
    const Vec3 m = mean[k] / float(picks[k]);
    EXPECT_NEAR(m.x, centroid.x, 0.01 * t.v[1].x) << k;
    EXPECT_NEAR(m.y, centroid.y, 0.01 * t.v[1].x) << k;
  }
}

TEST(LightSampler, UniformTriangleGivesBarycentricsOfOneSimplex) {
  for (int i = 0; i < 32; ++i)
    for (int j = 0; j < 32; ++j) {
      const Vec3 b = uniform_triangle({i / 32.0f, j / 32.0f});
      EXPECT_GE(b.x, 0.0f);
      EXPECT_GE(b.y, 0.0f);
      EXPECT_GE(b.z, -1e-7f);
      EXPECT_NEAR(b.x + b.y + b.z, 1.0f, 1e-6f);
    }
}

TEST(LightSampler, NoEmitterAndDegenerateEmittersGiveAnEmptyDistribution) {
  Scene s = three_triangles();
  s.materials[1].emission = s.materials[2].emission = {0, 0, 0};
  s.materials.push_back({"lamp", {0.5f, 0.5f, 0.5f}, {1, 1, 1}});
  s.triangles.push_back({{{0, 0, 3}, {1, 0, 3}, {2, 0, 3}}, 3, std::nullopt, -1});  // no area
  const LightSampler lights(s);
  EXPECT_TRUE(lights.empty());
  EXPECT_EQ(lights.pdf_area(3), 0.0f);
  EXPECT_EQ(choose_light_sampling(LightSampling::automatic, lights).mode, LightSampling::hemisphere);
  EXPECT_EQ(choose_light_sampling(LightSampling::mis, lights).mode, LightSampling::hemisphere);
}

TEST(LightSampling, AutoTakesMisUnlessEmittersAreMostOfTheArea) {
  Scene s = three_triangles();
  EXPECT_EQ(choose_light_sampling(LightSampling::automatic, LightSampler(s)).mode, LightSampling::mis);
  EXPECT_EQ(choose_light_sampling(LightSampling::hemisphere, LightSampler(s)).mode, LightSampling::hemisphere);
  s.materials[0].emission = {0.1f, 0.1f, 0.1f};  // every triangle emits
  const LightSampler all(s);
  EXPECT_EQ(all.emissive_area_fraction(), 1.0);
  const LightSamplingChoice c = choose_light_sampling(LightSampling::automatic, all);
  EXPECT_EQ(c.mode, LightSampling::hemisphere);
  EXPECT_NE(c.why.find("100 %"), std::string::npos) << c.why;
  EXPECT_EQ(choose_light_sampling(LightSampling::mis, all).mode, LightSampling::mis);
  for (LightSampling m : {LightSampling::automatic, LightSampling::mis, LightSampling::hemisphere})
    EXPECT_EQ(light_sampling_from_name(light_sampling_name(m)), m);
  EXPECT_THROW(light_sampling_from_name("nee"), std::invalid_argument);
}
