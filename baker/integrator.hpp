#pragma once
// The integrator: direct light, then B indirect bounces without recursion. Bounce 0
// gathers analytic lights (shadow rays), the sky dome and emissive surfaces; bounce k
// gathers, at the first hit of each hemisphere ray, albedo x the lightmap of bounce k-1
// (bilinear, dilated). The lightmap stores incident irradiance / pi, so a surface shows
// albedo x lightmap + emission, and a closed furnace of albedo rho and emission E gives
// E (1 - rho^(B+1)) / (1 - rho).
#include <atomic>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <vector>

#include "baker/atlas.hpp"
#include "baker/ray_tracer.hpp"
#include "baker/sampler.hpp"

namespace mixforge::baker {

struct BakeProgress {
  std::uint32_t pass = 0, passes = 0;    // pass 0 is direct light
  std::uint64_t texels_done = 0, texels = 0;
  std::uint64_t rays = 0;                // traced so far in this pass
  double seconds = 0;                    // since the pass started
};

struct IntegratorOptions {
  std::uint32_t bounces = 2;
  // Order of the hemisphere rays: true = batches of one stratum for all texels of a tile
  // (coherent); false = the same rays, each tile's batch shuffled over its texels and
  // samples (for the coherence benchmark).
  bool coherent = true;
  // Called from worker threads, serialised by the integrator, at most every ~100 ms.
  std::function<void(const BakeProgress&)> progress;
  // When it turns true the integrator stops within a few sample batches of a tile and throws
  // BakeCancelled (null: never).
  const std::atomic<bool>* cancel = nullptr;
};

class BakeCancelled : public std::runtime_error {
 public:
  BakeCancelled() : std::runtime_error("bake cancelled") {}
};

struct PassStats {
  std::uint64_t rays = 0;  // hemisphere + shadow rays
  double seconds = 0;
  double dilate_seconds = 0;
};

struct IntegratorResult {
  Lightmap lightmap;                  // sum of all passes, dilated
  std::vector<Lightmap> passes;       // each pass alone (dilated)
  std::vector<PassStats> stats;       // one per pass
};

IntegratorResult integrate(const Scene& scene, const Atlas& atlas, const RayTracer& tracer,
                           const Sampler& sampler, const IntegratorOptions& options);

// Surface colour at a hit: albedo x lightmap + emission.
Vec3 shade(const Scene& scene, const Atlas& atlas, const Lightmap& lightmap, const Hit& hit);
// The hit's atlas coordinates.
Vec2 hit_uv(const Atlas& atlas, const Hit& hit);

}  // namespace mixforge::baker
