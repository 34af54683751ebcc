// --backend auto's trial (baker/integrate/backend_trial.hpp) and its choice
// (baker/trace/backend_calibration.hpp). No timed assertions: the choice is checked against
// the measures it was given, and the trial's on a real Vulkan device in vulkan_tracer_test.
#include <gtest/gtest.h>

#include "baker/integrate/backend_trial.hpp"
#include "baker/scene/cornell_box.hpp"

using namespace mixforge::baker;

TEST(BackendCalibration, TheFasterTrialIsChosenAndTiesKeepEmbree) {
  // The H100's case (bench/results/bake/backends_h100.txt): Vulkan 30x slower than Embree.
  const TrialMeasure em{.texels = 65536, .rays = 50'000'000, .seconds = 0.8, .complete = true};
  TrialMeasure vk{.texels = 65536, .rays = 50'000'000, .seconds = 24, .complete = true, .tiles_per_batch = 256};
  const auto e = choose_by_trial(em, vk, "NVIDIA H100 80GB HBM3", 256, 65536);
  EXPECT_EQ(e.backend, "embree");
  EXPECT_NE(e.why.find("first 256 tiles (65536 texels)"), std::string::npos) << e.why;
  EXPECT_NE(e.why.find("Embree 8.192e+04 texels/s (62.50 Mrays/s, 0.800 s)"), std::string::npos) << e.why;
  EXPECT_NE(e.why.find("Vulkan on NVIDIA H100 80GB HBM3 2731 texels/s (2.08 Mrays/s, 24.000 s)"), std::string::npos)
      << e.why;
  EXPECT_NE(e.why.find("Embree is faster"), std::string::npos) << e.why;
  vk.seconds = 0.1;
  const auto v = choose_by_trial(em, vk, "RTX", 256, 65536);
  EXPECT_EQ(v.backend, "vulkan");
  EXPECT_NE(v.why.find("Vulkan is faster"), std::string::npos) << v.why;
  vk.seconds = em.seconds;
  EXPECT_EQ(choose_by_trial(em, vk, "x", 1, 1).backend, "embree");
}

TEST(BackendCalibration, AVulkanTrialStoppedAtEmbreesTimeLoses) {
  const TrialMeasure em{.texels = 4096, .rays = 1'000'000, .seconds = 0.5, .complete = true};
  const TrialMeasure vk{.texels = 1024, .rays = 250'000, .seconds = 0.5, .complete = false};
  const auto c = choose_by_trial(em, vk, "dev", 16, 4096);
  EXPECT_EQ(c.backend, "embree");
  EXPECT_NE(c.why.find("stopped at Embree's time (0.500 s) with 1024 texels done (at least 2048 texels/s"),
            std::string::npos)
      << c.why;
}

TEST(BackendCalibration, TheTrialTakesA32ndOfTheTilesAndAVulkanBatchPerThread) {
  Atlas a;
  a.tiles.resize(6400);
  for (std::uint32_t i = 0; i < a.tiles.size(); ++i) a.tiles[i] = {i * 256, (i + 1) * 256};
  EXPECT_EQ(trial_tiles(a, 1, 2), 200u);
  EXPECT_EQ(trial_tiles(a, 256, 2), 512u);
  EXPECT_EQ(trial_tiles(a, 256, 16), 4096u);
  EXPECT_EQ(trial_tiles(a, 256, 64), 6400u) << "at most all of them";
  EXPECT_EQ(trial_tiles(Atlas{}, 256, 2), 0u);
}
