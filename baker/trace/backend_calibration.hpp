#pragma once
// `--backend auto`'s measurement. A GPU's ray-tracing pipelines are not always faster than
// Embree on the host's cores: on an H100 (no RT cores) the Vulkan back end traced 2.07
// Mrays/s against Embree's 62 on its 16 cores (bench/results/bake/backends_h100.txt).
// So auto traces the same calibration rays with both back ends and keeps the faster.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "baker/trace/ray_tracer.hpp"
#include "baker/scene/scene.hpp"

namespace mixforge::baker {

// n rays leaving points on the scene's triangles (picked by a fixed-seed generator, so every
// back end gets the same rays) in uniformly random directions, a little off the surface.
// Throws std::invalid_argument for a scene without triangles.
std::vector<Ray> calibration_rays(const Scene& scene, std::size_t n, std::uint64_t seed = 1);

// Closest-hit rays per second of `tracer` on `rays`: one untimed call (pipelines, caches),
// then the fastest of `rounds` timed calls, each over all the rays as one coherent batch.
double measure_rays_per_s(const RayTracer& tracer, std::span<const Ray> rays, int rounds = 3);

struct BackendRates {
  double embree = 0;  // rays per second
  double vulkan = 0;
};

// "vulkan" when it traced faster, else "embree"; and the sentence for the bake report.
struct CalibratedChoice {
  std::string backend;
  std::string why;
};
CalibratedChoice choose_by_rate(const BackendRates& rates, const std::string& vulkan_device, std::size_t rays);

}  // namespace mixforge::baker
