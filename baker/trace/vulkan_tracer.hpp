#pragma once
// The Vulkan ray-tracing back end (VK_KHR_ray_tracing_pipeline + acceleration_structure):
// one BLAS over the scene's triangles, a TLAS with one instance, raygen / miss / closest-hit
// shaders (baker/trace/shaders/, GLSL compiled to SPIR-V at build time), a shader binding table.
// Runs on Mesa's lavapipe (CPU, Mesa >= 25) and on GPU drivers. The Vulkan loader is opened
// at run time, so mixforge starts (and falls back to Embree) on machines without one.
#include <chrono>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>

#include "baker/sampling/mixer4.hpp"
#include "baker/trace/ray_tracer.hpp"

namespace mixforge::baker {

// No usable Vulkan ray-tracing device; what() says why (no loader, no device with the
// extensions, which device lacks what).
class VulkanUnavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A submission did not finish within VulkanOptions::fence_timeout (a shader stuck in a
// loop: CPU drivers have no watchdog). The tracer is unusable afterwards.
class VulkanTimeout : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct VulkanOptions {
  std::chrono::milliseconds fence_timeout{std::chrono::minutes(2)};
  // The mixers of the direction generator (VulkanTracer::cmj_directions): empty = the
  // default family, whose GLSL (shader/ export) is compiled into SPIR-V at build time;
  // else the family's exported GLSL is compiled at run time (glslang).
  std::optional<std::vector<MixerInfo>> mixers;
  // Replaces the mixers' GLSL outright (tests: a shader that never ends).
  std::optional<std::string> mixers_glsl_override;
};

// The per-texel input and output of the direction generator.
struct DirectionTexel {
  std::uint32_t x = 0, y = 0;  // atlas coordinates (they seed the texel's set)
  Vec3 normal{0, 0, 1};
};
struct GeneratedDirection {
  Vec2 u;       // the mixforge-cmj sample in [0,1)^2
  Vec3 local;   // cosine_hemisphere(u)
  Vec3 world;   // Frame(normal).to_world(local)
};

// Thread-safe: one mutex serialises the queue (each call records, submits and waits for
// its own command buffer), so concurrent callers take turns; the driver parallelises a
// launch internally (lavapipe: LP_NUM_THREADS threads).
class VulkanTracer : public RayTracer {
 public:
  virtual std::string device_name() const = 0;
  // Sample `sample` (of `spp`) of pass `pass` for every texel, computed in the raygen
  // shader by the mixers' exported GLSL: mixforge-cmj's point, its cosine-hemisphere
  // direction and that direction around the texel's normal.
  virtual void cmj_directions(std::span<const DirectionTexel> texels, std::uint32_t spp,
                              std::uint64_t seed, std::uint32_t pass, std::uint32_t sample,
                              std::span<GeneratedDirection> out) const = 0;
};

// Throws VulkanUnavailable (why) or std::runtime_error (a Vulkan call failed, with its name
// and VkResult).
std::unique_ptr<VulkanTracer> make_vulkan_tracer(const Scene& scene, const VulkanOptions& options = {});

// Which device make_vulkan_tracer would use, without creating it (an instance only): cheap
// enough for `--backend auto`.
struct VulkanProbe {
  std::optional<std::string> unavailable;  // why there is no device with ray-tracing pipelines
  std::string device;                      // else its name
  bool cpu = false;                        // a CPU implementation (lavapipe), not a GPU
};
VulkanProbe probe_vulkan();

}  // namespace mixforge::baker
