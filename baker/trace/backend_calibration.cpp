#include "baker/trace/backend_calibration.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <stdexcept>

namespace mixforge::baker {

std::vector<Ray> calibration_rays(const Scene& scene, std::size_t n, std::uint64_t seed) {
  if (scene.triangles.empty()) throw std::invalid_argument("calibration rays: the scene has no triangles");
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u01(0.0f, 1.0f);
  std::uniform_int_distribution<std::size_t> pick(0, scene.triangles.size() - 1);
  std::vector<Ray> rays(n);
  for (Ray& r : rays) {
    const Triangle& t = scene.triangles[pick(rng)];
    float a = u01(rng), b = u01(rng);
    if (a + b > 1) a = 1 - a, b = 1 - b;
    const Vec3 p = t.v[0] + a * (t.v[1] - t.v[0]) + b * (t.v[2] - t.v[0]);
    // A uniform direction on the sphere (z uniform in [-1, 1], azimuth uniform).
    const float z = 2 * u01(rng) - 1, phi = 6.2831853f * u01(rng), s = std::sqrt(std::max(0.0f, 1 - z * z));
    r.direction = {s * std::cos(phi), s * std::sin(phi), z};
    r.origin = p;
    r.tnear = 1e-4f;  // leave the surface the ray starts on
  }
  return rays;
}

double measure_rays_per_s(const RayTracer& tracer, std::span<const Ray> rays, int rounds) {
  if (rays.empty()) throw std::invalid_argument("measure_rays_per_s: no rays");
  std::vector<Hit> hits(rays.size());
  tracer.intersect(rays, hits, true);
  double best = 0;
  for (int k = 0; k < std::max(rounds, 1); ++k) {
    const auto t0 = std::chrono::steady_clock::now();
    tracer.intersect(rays, hits, true);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    best = std::max(best, static_cast<double>(rays.size()) / std::max(s, 1e-9));
  }
  return best;
}

CalibratedChoice choose_by_rate(const BackendRates& rates, const std::string& vulkan_device, std::size_t rays) {
  const bool vulkan = rates.vulkan > rates.embree;
  char line[320];
  std::snprintf(line, sizeof line,
                "auto: %zu calibration rays: Vulkan on %s %.2f Mrays/s, Embree %.2f Mrays/s; %s is faster", rays,
                vulkan_device.c_str(), rates.vulkan / 1e6, rates.embree / 1e6, vulkan ? "Vulkan" : "Embree");
  return {vulkan ? "vulkan" : "embree", line};
}

}  // namespace mixforge::baker
