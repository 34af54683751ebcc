#pragma once
// The integrator: direct light, then B indirect bounces without recursion. Bounce 0
// gathers analytic lights (shadow rays), the sky dome and emissive surfaces (hemisphere
// rays, combined by multiple importance sampling with next-event estimation of the emissive
// triangles unless LightSampling says otherwise); bounce k
// gathers, at the first hit of each hemisphere ray, albedo x the lightmap of bounce k-1
// (bilinear, dilated). The lightmap stores incident irradiance / pi, so a surface shows
// albedo x lightmap + emission, and a closed furnace of albedo rho and emission E gives
// E (1 - rho^(B+1)) / (1 - rho). A ray that hits a sky face (Material::sky) has reached the
// sky as one that hits nothing: hemisphere rays gather the sky dome there, and a sun's shadow
// ray, traced to its first hit, is unblocked when that hit is a sky face. A hemisphere ray
// that hits a triangle from behind gathers black, unless the triangle's material is two-sided
// (Material::two_sided): then it gathers albedo x the back chart's lightmap (no emission).
// Facing is decided here, from the triangle's geometric normal, for both back ends alike.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "baker/integrate/atlas.hpp"
#include "baker/integrate/light_sampler.hpp"
#include "baker/trace/ray_tracer.hpp"
#include "baker/sampling/sampler.hpp"

namespace mixforge::baker {

enum class MisHeuristic { balance, power };
std::string_view mis_heuristic_name(MisHeuristic h);  // "balance", "power"

struct BakeProgress {
  std::uint32_t pass = 0, passes = 0;    // pass 0 is direct light
  std::uint64_t texels_done = 0, texels = 0;
  std::uint64_t rays = 0;                // traced so far in this pass
  double seconds = 0;                    // since the pass started
};

struct PassHead;

struct IntegratorOptions {
  std::uint32_t bounces = 2;
  // Order of the hemisphere rays: true = batches of one stratum for all texels of a tile
  // (coherent); false = the same rays, each tile's batch shuffled over its texels and
  // samples (for the coherence benchmark).
  bool coherent = true;
  // Emissive triangles in bounce 0 (light_sampler.hpp).
  LightSampling light_sampling = LightSampling::automatic;
  // The MIS weight: balance (p_a / (p_a + p_b)) or power (p_a^2 / (p_a^2 + p_b^2)). Power:
  // on the Cornell box's direct light it gave 1.7-2.3x lower RMSE at 16 spp than balance
  // with the stratified samplers (1.2x with white noise); about even in emissive boxes.
  MisHeuristic heuristic = MisHeuristic::power;
  // Called from worker threads, serialised by the integrator, at most every ~100 ms.
  std::function<void(const BakeProgress&)> progress;
  // When it turns true the integrator stops within a few sample batches of a tile and throws
  // BakeCancelled (null: never).
  const std::atomic<bool>* cancel = nullptr;
  // Tiles per work item: a work item's sample batch (one stratum for all its texels) goes to
  // the tracer in one call. 0: enough tiles that a batch reaches RayTracer::batch_rays(). The
  // lightmap does not depend on it (each texel sums its samples in one order whatever the batch).
  // Random ray order (coherent false) always takes one tile: its shuffle is per work item.
  std::uint32_t tiles_per_batch = 0;
  // Pass 0 of the first tiles, already baked with the same tracer and sampler (auto's trial,
  // backend_trial.hpp): kept, not traced again.
  const PassHead* head = nullptr;
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

// Hemisphere rays whose first hit is a triangle's back (all passes). A two-sided triangle's
// back gathers its back chart; a one-sided one's gathers black.
struct BackHits {
  std::uint64_t rays = 0;
  std::uint64_t triangles = 0;  // distinct triangles hit from behind
  std::uint64_t one_sided_rays = 0;       // of those on one-sided triangles (black)
  std::uint64_t one_sided_triangles = 0;
};

struct IntegratorResult {
  Lightmap lightmap;                  // sum of all passes, dilated
  std::vector<Lightmap> passes;       // each pass alone (dilated)
  std::vector<PassStats> stats;       // one per pass
  LightSamplingChoice light;          // what bounce 0 did with emissive triangles
  std::size_t emissive_triangles = 0;
  double emissive_area_fraction = 0;
  BackHits back_hits;
};

IntegratorResult integrate(const Scene& scene, const Atlas& atlas, const RayTracer& tracer,
                           const Sampler& sampler, const IntegratorOptions& options);

// The tiles per work item integrate() uses with this tracer (IntegratorOptions::tiles_per_batch).
std::uint32_t tiles_per_batch(const Atlas& atlas, const RayTracer& tracer, const IntegratorOptions& options);

// Pass 0 of the atlas's first tiles, as integrate() bakes them (same work items, threads and
// batches): `--backend auto` times it on each back end and hands the faster one's to integrate().
struct PassHead {
  std::size_t tiles = 0;        // tiles [0, tiles) asked for
  bool complete = false;        // false: stopped at the deadline (then only the counts below hold)
  std::size_t texels_done = 0;  // texels of the work items that finished
  std::uint64_t rays = 0;       // traced by those work items
  double seconds = 0;           // wall time, start to the last work item's end (or the stop)
  std::uint32_t tiles_per_batch = 1;
  std::vector<Vec3> texels;     // complete: pass 0 of texels [0, tiles[tiles - 1].end), undilated
  std::uint64_t back_rays = 0, one_sided_back_rays = 0;
  std::vector<std::uint32_t> back_triangles;  // triangles hit from behind
};
// deadline: work stops within a few sample batches once it passes (complete = false).
PassHead integrate_head(const Scene& scene, const Atlas& atlas, const RayTracer& tracer, const Sampler& sampler,
                        const IntegratorOptions& options, std::size_t tiles,
                        std::optional<std::chrono::steady_clock::time_point> deadline = std::nullopt);

// Where the rays of a texel start (every ray of the integrator: shadow, light and hemisphere
// rays): off the surface along its normal by a bound on the float error of the texel's
// position, which grows with the triangle's distance from the origin (pbrt-v4's error-bounds
// offset), rounded away from the surface; and hits closer than that offset are ignored
// (tnear: Embree's tnear, the raygen shader's tMin). Both back ends trace these same rays.
struct RayStart {
  Vec3 origin;
  float tnear = 0;
};
RayStart ray_start(const Scene& scene, const AtlasTexel& texel);

// Surface colour at a hit: albedo x lightmap + emission; back: the hit is on the triangle's
// back (albedo x the back chart's lightmap for a two-sided triangle, black for a one-sided one).
Vec3 shade(const Scene& scene, const Atlas& atlas, const Lightmap& lightmap, const Hit& hit, bool back = false);
// The hit's atlas coordinates (back: on a two-sided triangle's back chart).
Vec2 hit_uv(const Atlas& atlas, const Hit& hit, bool back = false);

}  // namespace mixforge::baker
