#pragma once
// The ray-tracer back-end seam: the integrator hands over batches of rays and gets the
// closest hits (or occlusion flags) back. Embree 3 implements it (embree_tracer.hpp); a
// Vulkan ray-tracing back end would implement the same interface.
#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <string>

#include "baker/scene/scene.hpp"

namespace mixforge::baker {

struct Ray {
  Vec3 origin;
  Vec3 direction;
  float tnear = 0;
  float tfar = std::numeric_limits<float>::infinity();
};

inline constexpr std::uint32_t no_hit = 0xffffffffu;

struct Hit {
  std::uint32_t triangle = no_hit;  // scene triangle index, or no_hit
  float t = 0;
  float u = 0, v = 0;  // barycentrics of vertices 1 and 2
};

class RayTracer {
 public:
  virtual ~RayTracer() = default;
  virtual std::string name() const = 0;
  // Thread-safe. coherent: the batch's rays are similar (neighbouring origins, one
  // stratum of directions); the back end may trace them as a group.
  virtual void intersect(std::span<const Ray> rays, std::span<Hit> hits, bool coherent) const = 0;
  // occluded[k] = 1 when something lies between tnear and tfar on ray k.
  virtual void occluded(std::span<const Ray> rays, std::span<std::uint8_t> occluded,
                        bool coherent) const = 0;
  // How batches were traced, for the report ("" when there is nothing to say).
  virtual std::string traversal() const { return ""; }
  // Rays per call below which a call's fixed cost (Vulkan: a queue submission and a fence
  // wait) matters: the integrator gives a work item enough tiles to reach it. 0: none (one tile).
  virtual std::size_t batch_rays() const { return 0; }
};

}  // namespace mixforge::baker
