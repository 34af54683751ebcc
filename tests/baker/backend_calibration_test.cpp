// --backend auto's calibration (baker/trace/backend_calibration.hpp): the rays, the measurement
// and the choice. No timed assertions: the choice is checked against the rates it was given.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "baker/trace/backend_calibration.hpp"
#include "baker/scene/cornell_box.hpp"
#include "baker/trace/embree_tracer.hpp"

using namespace mixforge::baker;

TEST(BackendCalibration, RaysAreTheSameForTheSameSeedAndLeaveTheScenesSurfaces) {
  const Scene scene = cornell_box();
  const auto a = calibration_rays(scene, 1000, 7), b = calibration_rays(scene, 1000, 7);
  const auto c = calibration_rays(scene, 1000, 8);
  ASSERT_EQ(a.size(), 1000u);
  int differ = 0;
  for (std::size_t k = 0; k < a.size(); ++k) {
    EXPECT_EQ(a[k].origin, b[k].origin);
    EXPECT_EQ(a[k].direction, b[k].direction);
    EXPECT_NEAR(length(a[k].direction), 1.0f, 1e-5f);
    EXPECT_GT(a[k].tnear, 0.0f);
    differ += !(a[k].origin == c[k].origin);
  }
  EXPECT_GT(differ, 990) << "another seed gives other rays";
  // Most rays from the inside of a closed room hit something; those leaving through the
  // open front miss. Both kinds occur.
  const auto embree = make_embree_tracer(scene);
  std::vector<Hit> hits(a.size());
  embree->intersect(a, hits, true);
  int hit = 0;
  for (const Hit& h : hits) hit += h.triangle != no_hit;
  EXPECT_GT(hit, 100);
}

TEST(BackendCalibration, AnEmptySceneOrNoRaysIsAnError) {
  EXPECT_THROW(calibration_rays(Scene{}, 10), std::invalid_argument);
  const auto embree = make_embree_tracer(cornell_box());
  EXPECT_THROW(measure_rays_per_s(*embree, {}), std::invalid_argument);
}

TEST(BackendCalibration, MeasuresAPositiveRate) {
  const Scene scene = cornell_box();
  const auto embree = make_embree_tracer(scene);
  const double r = measure_rays_per_s(*embree, calibration_rays(scene, 4096), 2);
  EXPECT_TRUE(std::isfinite(r));
  EXPECT_GT(r, 0);
}

TEST(BackendCalibration, TheFasterBackEndIsChosenAndTiesKeepEmbree) {
  const auto v = choose_by_rate({.embree = 6.2e7, .vulkan = 2.07e6}, "NVIDIA H100 80GB HBM3", 131072);
  EXPECT_EQ(v.backend, "embree");
  EXPECT_NE(v.why.find("NVIDIA H100 80GB HBM3 2.07 Mrays/s"), std::string::npos) << v.why;
  EXPECT_NE(v.why.find("Embree 62.00 Mrays/s"), std::string::npos) << v.why;
  EXPECT_NE(v.why.find("131072 calibration rays"), std::string::npos) << v.why;
  EXPECT_NE(v.why.find("Embree is faster"), std::string::npos) << v.why;
  const auto g = choose_by_rate({.embree = 8e6, .vulkan = 4e8}, "RTX", 10);
  EXPECT_EQ(g.backend, "vulkan");
  EXPECT_NE(g.why.find("Vulkan is faster"), std::string::npos) << g.why;
  EXPECT_EQ(choose_by_rate({.embree = 1e6, .vulkan = 1e6}, "x", 10).backend, "embree");
}
