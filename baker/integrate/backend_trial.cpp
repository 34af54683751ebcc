#include "baker/integrate/backend_trial.hpp"

#include <tbb/task_arena.h>

#include <algorithm>
#include <chrono>
#include <vector>

namespace mixforge::baker {
namespace {

TrialMeasure measure(const PassHead& h) {
  TrialMeasure m;
  m.texels = h.texels_done;
  m.rays = h.rays;
  m.seconds = h.seconds;
  m.complete = h.complete;
  m.tiles_per_batch = h.tiles_per_batch;
  return m;
}

// One untimed call first: a driver may compile or upload on its first launch, a cost the
// bake pays once, which a short trial would count many times over.
void warm_up(const Scene& scene, const Atlas& atlas, const RayTracer& tracer) {
  if (atlas.texels.empty()) return;
  const RayStart start = ray_start(scene, atlas.texels.front());
  std::vector<Ray> rays(256, Ray{start.origin, atlas.texels.front().normal, start.tnear});
  std::vector<Hit> hits(rays.size());
  tracer.intersect(rays, hits, true);
}

}  // namespace

std::size_t trial_tiles(const Atlas& atlas, std::uint32_t vulkan_tiles_per_batch, std::size_t threads) {
  const std::size_t all = atlas.tiles.size();
  const std::size_t floor = std::max<std::size_t>(1, threads) * std::max<std::uint32_t>(1, vulkan_tiles_per_batch);
  return std::min(all, std::max((all + 31) / 32, floor));
}

BackendTrial run_backend_trial(const Scene& scene, const Atlas& atlas, const RayTracer& embree,
                               const RayTracer& vulkan, const std::string& vulkan_device, const Sampler& sampler,
                               const IntegratorOptions& options) {
  IntegratorOptions o = options;
  o.progress = nullptr;
  o.head = nullptr;
  BackendTrial t;
  const auto threads = static_cast<std::size_t>(tbb::this_task_arena::max_concurrency());
  t.tiles = trial_tiles(atlas, tiles_per_batch(atlas, vulkan, o), threads);
  t.texels = t.tiles ? atlas.tiles[t.tiles - 1].end : 0;
  warm_up(scene, atlas, embree);
  PassHead em = integrate_head(scene, atlas, embree, sampler, o, t.tiles);
  warm_up(scene, atlas, vulkan);
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                            std::chrono::duration<double>(em.seconds));
  PassHead vk = integrate_head(scene, atlas, vulkan, sampler, o, t.tiles, deadline);
  if (options.cancel && options.cancel->load()) throw BakeCancelled();
  t.embree = measure(em);
  t.vulkan = measure(vk);
  t.choice = choose_by_trial(t.embree, t.vulkan, vulkan_device, t.tiles, t.texels);
  t.head = std::move(t.choice.backend == "vulkan" ? vk : em);
  return t;
}

}  // namespace mixforge::baker
