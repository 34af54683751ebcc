// bench_bake_coherence: rays/s of the baker's hemisphere gather in its order (per
// Morton-ordered tile, one stratum for all of the tile's texels at a time) against the same
// rays in random order, on a scene of >= 2M triangles, all measured in the same run,
// trials interleaved (issue 9, benchmark 2):
// - the whole gather pass's rays, prepared once, traced in the baker's order and in one
//   random permutation over the whole pass, each with rtcIntersect1, one rtcIntersect1M
//   stream per batch, 16-ray packets (baker's order) and Embree's traversal chosen by
//   measurement (EmbreeMode::measured, the baker's default until it proved not
//   reproducible); the headline is the measured choice in its order against the faster
//   way in random order;
// - the integrator's gather (IntegratorOptions::coherent) against the same rays shuffled
//   within each tile, and against 16-ray packets.
//
// The scene: the Cornell box (the receivers: its atlas) with 2M+ triangles standing in
// the room as occluders: --occluders sheet (default), a displaced, finely tessellated
// sheet; or clutter, 65,536 small closed polyhedra scattered through the room (foliage, a
// furnished interior: each ray passes many before one stops it). Occluders get no
// lightmap charts of their own (2M charts would make the atlas, not the rays, the
// subject): their atlas entries point at one covered texel, so a ray that hits one shades
// with that texel's light. The tracing work per ray is that of the full scene.
//
// With --vulkan 1 the whole pass is also traced by the Vulkan ray-tracing back end, in both
// orders, in launches of --vulkan-batch rays (default 65,536: one launch per stratum batch
// would measure the queue round trip, not the tracing); where no Vulkan device has
// ray-tracing pipelines that row says why instead.
//
//   bench_bake_coherence [--occluders sheet|clutter] [--grid N (N x N quads' worth of
//                        triangles, default 1024: 2,097,152)] [--spp S (default 64)]
//                        [--texel T (default 0.05 m)] [--threads K (default: all)]
//                        [--trials R (default 3)] [--vulkan 0|1 (default 0)]
//                        [--vulkan-batch B] [--tile E (atlas tile edge in texels, default:
//                        the baker's)]
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "baker/integrate/atlas.hpp"
#include "baker/scene/cornell_box.hpp"
#include "baker/sampling/default_mixer4.hpp"
#include "baker/trace/embree_tracer.hpp"
#include "baker/sampling/hemisphere.hpp"
#include "baker/integrate/integrator.hpp"
#include "baker/sampling/sampler.hpp"
#include "baker/trace/vulkan_tracer.hpp"

using namespace mixforge::baker;

namespace {

// A sheet of n x n quads in the middle of the Cornell box (metres: it spans 0..5.56 in x
// and z, 0..5.49 in y), tilted and rippled so rays meet it at every angle.
void add_occluders(Scene& scene, int n) {
  const std::uint32_t material = 0;  // the box's first material (white)
  auto point = [&](int i, int j) {
    const float u = static_cast<float>(i) / static_cast<float>(n), v = static_cast<float>(j) / static_cast<float>(n);
    const float ripple = 0.18f * std::sin(40.0f * u) * std::cos(37.0f * v);
    return Vec3{1.0f + 3.56f * u, 1.2f + 2.0f * v + ripple, 1.5f + 2.5f * v - ripple};
  };
  scene.triangles.reserve(scene.triangles.size() + 2 * static_cast<std::size_t>(n) * n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      const Vec3 a = point(i, j), b = point(i + 1, j), c = point(i + 1, j + 1), d = point(i, j + 1);
      Triangle t1, t2;
      t1.v[0] = a, t1.v[1] = b, t1.v[2] = c, t1.material = material;
      t2.v[0] = a, t2.v[1] = c, t2.v[2] = d, t2.material = material;
      scene.triangles.push_back(t1);
      scene.triangles.push_back(t2);
    }
}

// A clutter of small closed octahedra subdivided once (32 triangles each), scattered at
// random through the room (fixed seed): rays pass close to many of them before one stops
// them, as in foliage or a furnished interior, so each ray visits many BVH nodes.
void add_clutter(Scene& scene, std::size_t triangles) {
  const std::uint32_t material = 0;
  const std::size_t count = triangles / 32;
  const float radius = 0.03f;
  std::uint64_t r = 0x2545f4914f6cdd1dull;
  auto uniform = [&] {
    r ^= r << 13, r ^= r >> 7, r ^= r << 17;
    return static_cast<float>(r >> 40) / 16777216.0f;
  };
  const Vec3 octa[6] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
  const int faces[8][3] = {{0, 2, 4}, {2, 1, 4}, {1, 3, 4}, {3, 0, 4}, {2, 0, 5}, {1, 2, 5}, {3, 1, 5}, {0, 3, 5}};
  scene.triangles.reserve(scene.triangles.size() + 32 * count);
  for (std::size_t i = 0; i < count; ++i) {
    const Vec3 centre{0.3f + 4.96f * uniform(), 0.3f + 4.89f * uniform(), 0.3f + 4.96f * uniform()};
    auto at = [&](Vec3 d) { return centre + normalize(d) * radius; };
    for (const auto& f : faces) {
      const Vec3 a = octa[f[0]], b = octa[f[1]], c = octa[f[2]];
      const Vec3 ab = (a + b) * 0.5f, bc = (b + c) * 0.5f, ca = (c + a) * 0.5f;
      const Vec3 tris[4][3] = {{a, ab, ca}, {ab, b, bc}, {ca, bc, c}, {ab, bc, ca}};
      for (const auto& t : tris) {
        Triangle tr;
        tr.v[0] = at(t[0]), tr.v[1] = at(t[1]), tr.v[2] = at(t[2]), tr.material = material;
        scene.triangles.push_back(tr);
      }
    }
  }
}

double rays_per_s(const Scene& scene, const Atlas& atlas, const RayTracer& tracer, const Sampler& sampler,
                  bool coherent) {
  IntegratorOptions o;
  o.bounces = 1;
  o.coherent = coherent;
  const IntegratorResult r = integrate(scene, atlas, tracer, sampler, o);
  // The indirect pass is the hemisphere gather (pass 0 is direct light and shadow rays).
  const PassStats& s = r.stats.back();
  return static_cast<double>(s.rays) / s.seconds;
}

// Every hemisphere ray of one gather pass, generated as the integrator does (per tile, one
// stratum s for all of the tile's texels at a time), in that order: batch b holds the rays
// [batch_begin[b], batch_begin[b + 1]).
struct PassRays {
  std::vector<Ray> rays;
  std::vector<std::size_t> batch_begin;
};

PassRays gather_rays(const Atlas& atlas, const Sampler& sampler, float eps) {
  PassRays p;
  p.batch_begin.push_back(0);
  for (const Atlas::Tile& tile : atlas.tiles) {
    const std::size_t n = tile.end - tile.begin;
    std::vector<SamplerState> states(n);
    std::vector<Vec2> u(n);
    for (std::size_t k = 0; k < n; ++k) {
      const AtlasTexel& t = atlas.texels[tile.begin + k];
      states[k] = sampler.start(t.x, t.y, 1, hemisphere_pattern);
    }
    for (std::uint32_t s = 0; s < sampler.count(); ++s) {
      sampler.generate(states, s, u);
      for (std::size_t k = 0; k < n; ++k) {
        const AtlasTexel& t = atlas.texels[tile.begin + k];
        Ray r;
        r.origin = t.position + t.normal * eps;
        r.direction = Frame(t.normal).to_world(cosine_hemisphere(u[k]));
        p.rays.push_back(r);
      }
      p.batch_begin.push_back(p.rays.size());
    }
  }
  return p;
}

// Traces the rays in batches (in parallel, as the integrator does); rays/s.
double trace_batches(const RayTracer& tracer, const std::vector<Ray>& rays, const std::vector<std::size_t>& begin) {
  std::vector<Hit> hits(rays.size());
  const auto t0 = std::chrono::steady_clock::now();
  tbb::parallel_for(std::size_t{0}, begin.size() - 1, [&](std::size_t b) {
    const std::size_t lo = begin[b], hi = begin[b + 1];
    tracer.intersect(std::span<const Ray>(rays.data() + lo, hi - lo), std::span<Hit>(hits.data() + lo, hi - lo), true);
  });
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return static_cast<double>(rays.size()) / s;
}

// Consecutive batches joined into launches of at least `size` rays.
std::vector<std::size_t> merged_batches(const std::vector<std::size_t>& begin, std::size_t size) {
  std::vector<std::size_t> out{0};
  for (std::size_t b = 1; b < begin.size(); ++b)
    if (begin[b] - out.back() >= size || b + 1 == begin.size()) out.push_back(begin[b]);
  return out;
}

// One thread submits launches one after the other: the driver spreads each launch over the
// cores itself (lavapipe: LP_NUM_THREADS), and the tracer serialises its queue anyway.
double trace_launches(const RayTracer& tracer, const std::vector<Ray>& rays, const std::vector<std::size_t>& begin) {
  std::vector<Hit> hits(rays.size());
  const auto t0 = std::chrono::steady_clock::now();
  for (std::size_t b = 0; b + 1 < begin.size(); ++b) {
    const std::size_t lo = begin[b], hi = begin[b + 1];
    tracer.intersect(std::span<const Ray>(rays.data() + lo, hi - lo), std::span<Hit>(hits.data() + lo, hi - lo), true);
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return static_cast<double>(rays.size()) / s;
}

}  // namespace

int main(int argc, char** argv) {
  int grid = 1024, trials = 3, threads = 0, vulkan = 0;
  std::string occluders = "sheet";
  std::size_t vulkan_batch = 65536;
  std::uint32_t spp = 64;
  float texel = 0.05f;
  std::uint32_t tile = AtlasOptions{}.tile;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--grid") grid = std::atoi(argv[i + 1]);
    else if (a == "--spp") spp = static_cast<std::uint32_t>(std::atoi(argv[i + 1]));
    else if (a == "--texel") texel = static_cast<float>(std::atof(argv[i + 1]));
    else if (a == "--threads") threads = std::atoi(argv[i + 1]);
    else if (a == "--trials") trials = std::atoi(argv[i + 1]);
    else if (a == "--occluders") occluders = argv[i + 1];
    else if (a == "--vulkan") vulkan = std::atoi(argv[i + 1]);
    else if (a == "--tile") tile = static_cast<std::uint32_t>(std::atoi(argv[i + 1]));
    else if (a == "--vulkan-batch") vulkan_batch = static_cast<std::size_t>(std::atoll(argv[i + 1]));
    else {
      std::fprintf(stderr, "bench_bake_coherence: unknown option %s\n", a.c_str());
      return 2;
    }
  }
  std::unique_ptr<tbb::global_control> limit;
  if (threads > 0) limit = std::make_unique<tbb::global_control>(tbb::global_control::max_allowed_parallelism, threads);

  Scene scene = cornell_box();
  AtlasOptions ao;
  ao.texel_size = texel;
  ao.tile = tile;
  Atlas atlas = build_atlas(scene, ao);  // charts for the box only
  const std::size_t receivers = scene.triangles.size();
  if (occluders == "sheet") {
    add_occluders(scene, grid);
  } else if (occluders == "clutter") {
    add_clutter(scene, 2 * static_cast<std::size_t>(grid) * grid);
  } else {
    std::fprintf(stderr, "bench_bake_coherence: --occluders is sheet or clutter, not %s\n", occluders.c_str());
    return 2;
  }
  for (std::size_t t = receivers; t < scene.triangles.size(); ++t) {
    const Triangle& tr = scene.triangles[t];
    const Vec3 e1 = tr.v[1] - tr.v[0], e2 = tr.v[2] - tr.v[0];
    atlas.triangle_normal.push_back(normalize(cross(e1, e2)));
    const Vec2 c{static_cast<float>(atlas.texels[0].x) + 0.5f, static_cast<float>(atlas.texels[0].y) + 0.5f};
    atlas.triangle_uv.push_back({c, c, c});
    atlas.two_sided.push_back(0);
    atlas.triangle_back_uv.push_back({c, c, c});
  }
  const auto t0 = std::chrono::steady_clock::now();
  const auto tracer = make_embree_tracer(scene, EmbreeMode::single);
  const double build_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const auto sampler = make_sampler(SamplerKind::mixforge_cmj, spp, 1, default_mixer4());
  std::printf("scene: %zu triangles (%zu receivers, %zu occluders), atlas %ux%u with %zu texels, %u spp; "
              "Embree BVH built in %.2f s\n",
              scene.triangles.size(), receivers, scene.triangles.size() - receivers, atlas.width, atlas.height,
              atlas.texels.size(), spp, build_s);
  const auto packets = make_embree_tracer(scene, EmbreeMode::packet16);
  const auto streams = make_embree_tracer(scene, EmbreeMode::stream);
  // The measured choice: the baker's default until it proved not reproducible (embree_tracer.hpp).
  const auto measured = make_embree_tracer(scene, EmbreeMode::measured);
  // The whole pass, in the baker's order and in one random permutation of all its rays
  // (Fisher-Yates, fixed seed), cut into batches of the same sizes.
  const float eps = 1e-4f * std::max(bounds(scene).diagonal(), 1e-3f);  // the integrator's
  const PassRays pass = gather_rays(atlas, *sampler, eps);
  std::vector<Ray> random_order = pass.rays;
  std::uint64_t r = 0x9e3779b97f4a7c15ull;
  for (std::size_t i = random_order.size(); i > 1; --i) {
    r ^= r << 13, r ^= r >> 7, r ^= r << 17;  // xorshift64
    std::swap(random_order[i - 1], random_order[r % i]);
  }
  std::printf("whole pass: %zu rays in %zu batches\n", pass.rays.size(), pass.batch_begin.size() - 1);
  std::vector<double> pass_coherent, pass_random, pass_stream, pass_packet, pass_measured, pass_random_stream;
  std::vector<double> coherent, shuffled, packet;
  for (int k = 0; k < trials; ++k) {  // interleaved, so drifting load hits all alike
    coherent.push_back(rays_per_s(scene, atlas, *measured, *sampler, true));
    shuffled.push_back(rays_per_s(scene, atlas, *measured, *sampler, false));
    packet.push_back(rays_per_s(scene, atlas, *packets, *sampler, true));
    pass_coherent.push_back(trace_batches(*tracer, pass.rays, pass.batch_begin));
    pass_random.push_back(trace_batches(*tracer, random_order, pass.batch_begin));
    pass_stream.push_back(trace_batches(*streams, pass.rays, pass.batch_begin));
    pass_packet.push_back(trace_batches(*packets, pass.rays, pass.batch_begin));
    pass_measured.push_back(trace_batches(*measured, pass.rays, pass.batch_begin));
    pass_random_stream.push_back(trace_batches(*streams, random_order, pass.batch_begin));
    std::printf("trial %d: coherent %.3f Mrays/s, shuffled %.3f Mrays/s, coherent in 16-ray packets %.3f Mrays/s; "
                "whole pass: baker's order %.3f Mrays/s (streams %.3f, packets %.3f, the baker's measured choice %.3f), "
                "random order %.3f Mrays/s (streams %.3f)\n",
                k + 1, coherent.back() / 1e6, shuffled.back() / 1e6, packet.back() / 1e6, pass_coherent.back() / 1e6,
                pass_stream.back() / 1e6, pass_packet.back() / 1e6, pass_measured.back() / 1e6, pass_random.back() / 1e6,
                pass_random_stream.back() / 1e6);
  }
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  const double c = median(coherent), s = median(shuffled);
  std::printf("embree, hemisphere gather: coherent %.3f Mrays/s, shuffled %.3f Mrays/s (medians of %d) -> %.2fx\n",
              c / 1e6, s / 1e6, trials, c / s);
  const double pc = median(pass_coherent), pr = median(pass_random);
  std::printf("embree, whole gather pass: baker's order %.3f Mrays/s, random order over the pass %.3f Mrays/s "
              "(medians of %d) -> %.2fx\n",
              pc / 1e6, pr / 1e6, trials, pc / pr);
  const double ps = median(pass_stream), pp = median(pass_packet), pm = median(pass_measured);
  const double prs = median(pass_random_stream), best_random = std::max(pr, prs);
  std::printf("embree, whole gather pass in the baker's order: rtcIntersect1 %.3f Mrays/s, one rtcIntersect1M stream "
              "per batch %.3f Mrays/s (%.2fx), 16-ray packets %.3f Mrays/s (%.2fx); random order: rtcIntersect1 "
              "%.3f Mrays/s, streams %.3f Mrays/s\n",
              pc / 1e6, ps / 1e6, ps / pc, pp / 1e6, pp / pc, pr / 1e6, prs / 1e6);
  std::printf("embree, the baker as it runs (%s): %.3f Mrays/s in its order against %.3f Mrays/s in random order "
              "(the faster of rtcIntersect1 and streams) -> %.2fx\n",
              measured->traversal().c_str(), pm / 1e6, best_random / 1e6, pm / best_random);
  const double pk = median(packet);
  std::printf("embree, hemisphere gather in coherent batches: the baker's choice %.3f Mrays/s, 16-ray packets "
              "%.3f Mrays/s -> packets %.2fx\n",
              c / 1e6, pk / 1e6, pk / c);
  if (vulkan) {
    std::unique_ptr<VulkanTracer> vk;
    try {
      const auto v0 = std::chrono::steady_clock::now();
      vk = make_vulkan_tracer(scene);
      std::printf("vulkan: %s, acceleration structures built in %.2f s\n", vk->device_name().c_str(),
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - v0).count());
    } catch (const std::exception& e) {
      std::printf("vulkan: not measured: %s\n", e.what());
      return 0;
    }
    const std::vector<std::size_t> launches = merged_batches(pass.batch_begin, vulkan_batch);
    std::vector<double> vc, vr;
    for (int k = 0; k < trials; ++k) {
      vc.push_back(trace_launches(*vk, pass.rays, launches));
      vr.push_back(trace_launches(*vk, random_order, launches));
      std::printf("vulkan trial %d: baker's order %.3f Mrays/s, random order %.3f Mrays/s\n", k + 1, vc.back() / 1e6,
                  vr.back() / 1e6);
    }
    const double mc = median(vc), mr = median(vr);
    std::printf("vulkan (%s), whole gather pass in %zu launches of >= %zu rays: baker's order %.3f Mrays/s, "
                "random order %.3f Mrays/s (medians of %d) -> %.2fx\n",
                vk->device_name().c_str(), launches.size() - 1, vulkan_batch, mc / 1e6, mr / 1e6, trials, mc / mr);
  }
  return 0;
}
