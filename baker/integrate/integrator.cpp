#include "baker/integrate/integrator.hpp"

#include <tbb/parallel_for.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <mutex>
#include <numeric>

#include "baker/sampling/hash_utils.hpp"
#include "baker/sampling/hemisphere.hpp"

namespace mixforge::baker {
namespace {

using Clock = std::chrono::steady_clock;
constexpr float inv_pi = 0.318309886183790671538f;

double since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Serialises and throttles progress reports from the workers.
class ProgressReporter {
 public:
  ProgressReporter(const IntegratorOptions& o, std::uint32_t pass, std::uint32_t passes,
                   std::uint64_t texels)
      : fn_(o.progress), t0_(Clock::now()) {
    p_.pass = pass;
    p_.passes = passes;
    p_.texels = texels;
  }
  void add(std::uint64_t texels, std::uint64_t rays) {
    done_ += texels;
    rays_ += rays;
    if (!fn_) return;
    std::unique_lock lock(mutex_, std::try_to_lock);
    if (!lock) return;
    const double now = since(t0_);
    if (now - last_ < 0.1 && done_ < p_.texels) return;
    last_ = now;
    report(now);
  }
  void finish() {
    if (!fn_) return;
    std::lock_guard lock(mutex_);
    report(since(t0_));
  }
  std::uint64_t rays() const { return rays_; }

 private:
  void report(double now) {
    p_.texels_done = done_;
    p_.rays = rays_;
    p_.seconds = now;
    fn_(p_);
  }
  std::function<void(const BakeProgress&)> fn_;
  Clock::time_point t0_;
  BakeProgress p_;
  std::atomic<std::uint64_t> done_{0}, rays_{0};
  std::mutex mutex_;
  double last_ = -1;
};

}  // namespace

RayStart ray_start(const Scene& scene, const AtlasTexel& texel) {
  // The texel's position is the float rounding of a point on its triangle (atlas.cpp computes
  // it in double, kEdgeClearance offsets from its edges): off the triangle's plane by at most
  // half an ulp per axis, well within surface_offset (atlas.hpp).
  const Vec3 n = texel.normal;
  const float offset = surface_offset(scene.triangles[texel.triangle]);
  RayStart start;
  start.origin = texel.position + n * offset;
  // Rounded away from the surface (pbrt-v4's OffsetRayOrigin), so the rounding of the sum
  // does not give the offset back.
  for (int c = 0; c < 3; ++c) {
    if (n[c] > 0) start.origin[c] = std::nextafter(start.origin[c], INFINITY);
    if (n[c] < 0) start.origin[c] = std::nextafter(start.origin[c], -INFINITY);
  }
  start.tnear = offset;
  return start;
}

namespace {

// A sky face (Material::sky) is where a ray reaches the sky.
bool reaches_sky(const Scene& scene, std::uint32_t triangle) {
  return scene.materials[scene.triangles[triangle].material].sky;
}

// Analytic lights at texels [begin, end) (irradiance / pi), with shadow rays. The shadow
// rays of all those texels go to the tracer in one call: a back end with a per-call cost
// (Vulkan: one queue submission per call) pays it once per tile, not once per ray. Each
// texel's sum adds its lights in scene order, as one texel at a time would.
std::vector<Vec3> direct_analytic(const Scene& scene, const Atlas& atlas, std::size_t begin, std::size_t end,
                                  const RayTracer& tracer, std::uint64_t& rays) {
  std::vector<Vec3> sums(end - begin);
  // Point and spot lights: anything in between blocks them. Suns: traced to their first
  // hit, which lets the light in when it is a sky face (Material::sky: the ray has reached
  // the sky, and nothing beyond a sky face casts a shadow).
  std::vector<Ray> shadow;
  std::vector<Vec3> contribution;
  std::vector<std::uint32_t> owner;
  std::vector<std::uint8_t> to_sun;
  for (std::size_t k = 0; k < end - begin; ++k) {
    const AtlasTexel& texel = atlas.texels[begin + k];
    const RayStart start = ray_start(scene, texel);
    for (const Light& l : scene.lights) {
      if (l.kind == LightKind::sky) continue;  // gathered with the hemisphere rays
      Ray ray;
      ray.origin = start.origin;
      ray.tnear = start.tnear;
      Vec3 e;
      if (l.kind == LightKind::sun) {
        ray.direction = normalize(-l.direction);
        const float c = dot(ray.direction, texel.normal);
        if (c <= 0) continue;
        e = l.intensity * c;
      } else {
        const Vec3 d = l.position - start.origin;
        const float dist2 = dot(d, d);
        const float dist = std::sqrt(dist2);
        if (dist == 0 || (l.range > 0 && dist > l.range)) continue;
        ray.direction = d / dist;
        ray.tfar = dist * (1 - 1e-4f);
        const float c = dot(ray.direction, texel.normal);
        if (c <= 0) continue;
        float spot = 1;
        if (l.kind == LightKind::spot) {
          const float a = dot(-ray.direction, normalize(l.direction));
          if (a <= l.cone_outer) continue;
          const float t = std::clamp((a - l.cone_outer) / (l.cone_inner - l.cone_outer), 0.0f, 1.0f);
          spot = t * t * (3 - 2 * t);  // smoothstep between the cone angles
        }
        e = l.intensity * (c * spot / dist2);
      }
      shadow.push_back(ray);
      contribution.push_back(e * inv_pi);
      owner.push_back(static_cast<std::uint32_t>(k));
      to_sun.push_back(l.kind == LightKind::sun);
    }
  }
  if (shadow.empty()) return sums;
  std::vector<std::uint8_t> blocked(shadow.size());
  std::vector<Ray> others, suns;
  for (std::size_t i = 0; i < shadow.size(); ++i) (to_sun[i] ? suns : others).push_back(shadow[i]);
  std::vector<std::uint8_t> others_blocked(others.size());
  if (!others.empty()) tracer.occluded(others, others_blocked, false);
  std::vector<Hit> sun_hits(suns.size());
  if (!suns.empty()) tracer.intersect(suns, sun_hits, false);
  for (std::size_t i = 0, o = 0, u = 0; i < shadow.size(); ++i) {
    if (!to_sun[i]) {
      blocked[i] = others_blocked[o++];
      continue;
    }
    const std::uint32_t hit = sun_hits[u++].triangle;
    blocked[i] = hit != no_hit && !reaches_sky(scene, hit);
  }
  rays += shadow.size();
  // Each texel's sum adds its lights in scene order.
  for (std::size_t i = 0; i < shadow.size(); ++i)
    if (!blocked[i]) sums[owner[i]] += contribution[i];
  return sums;
}

// The MIS weight of a sample drawn with density p_this when the other strategy would have
// drawn it with density p_other (both per solid angle). Ratios, not squares: a light pdf
// near an emitter's edge-on direction can overflow its square.
float mis_weight(float p_this, float p_other, MisHeuristic h) {
  if (!(p_this > 0)) return 0;
  const float r = p_other / p_this;
  return h == MisHeuristic::power ? 1 / (1 + r * r) : 1 / (1 + r);
}

// Next-event estimation's shadow rays, collected over the sample batches of a tile and
// traced together (one call per tile, or per shadow_batch_rays rays: a per-call cost such
// as Vulkan's queue submission is paid rarely), then added to the texels' sums in the order
// they were generated.
class ShadowBatch {
 public:
  void add(const Ray& ray, Vec3 contribution, std::uint32_t texel) {
    rays_.push_back(ray);
    contribution_.push_back(contribution);
    owner_.push_back(texel);
  }
  std::size_t size() const { return rays_.size(); }
  // Traces the rays, adds the unblocked contributions; returns the rays traced.
  std::size_t flush(const RayTracer& tracer, std::vector<Vec3>& sum) {
    const std::size_t n = rays_.size();
    if (n == 0) return 0;
    blocked_.resize(n);
    tracer.occluded(rays_, blocked_, true);
    for (std::size_t i = 0; i < n; ++i)
      if (!blocked_[i]) sum[owner_[i]] += contribution_[i];
    rays_.clear();
    contribution_.clear();
    owner_.clear();
    return n;
  }

 private:
  std::vector<Ray> rays_;
  std::vector<Vec3> contribution_;
  std::vector<std::uint32_t> owner_;
  std::vector<std::uint8_t> blocked_;
};

constexpr std::size_t shadow_batch_rays = 1 << 16;

}  // namespace

std::string_view mis_heuristic_name(MisHeuristic h) {
  return h == MisHeuristic::power ? "power" : "balance";
}

Vec2 hit_uv(const Atlas& atlas, const Hit& hit, bool back) {
  const auto& uv = (back ? atlas.triangle_back_uv : atlas.triangle_uv)[hit.triangle];
  const float w = 1 - hit.u - hit.v;
  return {uv[0].x * w + uv[1].x * hit.u + uv[2].x * hit.v,
          uv[0].y * w + uv[1].y * hit.u + uv[2].y * hit.v};
}

Vec3 shade(const Scene& scene, const Atlas& atlas, const Lightmap& lightmap, const Hit& hit, bool back) {
  const Material& m = scene.materials[scene.triangles[hit.triangle].material];
  if (m.sky) return {};  // no texels: shown as a miss
  if (back) return atlas.two_sided[hit.triangle] ? m.albedo * lightmap.bilinear(hit_uv(atlas, hit, true)) : Vec3{};
  return m.albedo * lightmap.bilinear(hit_uv(atlas, hit)) + m.emission;
}

std::uint32_t tiles_per_batch(const Atlas& atlas, const RayTracer& tracer, const IntegratorOptions& options) {
  if (!options.coherent) return 1;
  if (options.tiles_per_batch > 0) return options.tiles_per_batch;
  const std::size_t want = tracer.batch_rays();
  if (want == 0 || atlas.tiles.empty()) return 1;
  const std::size_t mean_tile = std::max<std::size_t>(1, atlas.texels.size() / atlas.tiles.size());
  return static_cast<std::uint32_t>(std::clamp<std::size_t>((want + mean_tile - 1) / mean_tile, 1, 1u << 16));
}

namespace {

// integrate_head's stop: thrown inside a work item once the deadline has passed.
struct TrialStopped {};

void check_given_head(const Atlas& atlas, const PassHead* given) {
  if (given && (!given->complete || given->tiles > atlas.tiles.size() ||
                given->texels.size() != (given->tiles ? atlas.tiles[given->tiles - 1].end : 0)))
    throw std::invalid_argument("integrate: the given pass-0 head does not fit this atlas");
}

// Hemisphere rays that hit a triangle's back, and which triangles (result.back_hits), counted
// from every worker.
struct BackHitCounts {
  explicit BackHitCounts(std::size_t triangles) : hit_from_behind(triangles) {}
  std::vector<std::atomic<std::uint8_t>> hit_from_behind;
  std::atomic<std::uint64_t> rays{0}, one_sided_rays{0};

  std::vector<std::uint32_t> triangles() const {
    std::vector<std::uint32_t> out;
    for (std::size_t i = 0; i < hit_from_behind.size(); ++i)
      if (hit_from_behind[i].load(std::memory_order_relaxed)) out.push_back(static_cast<std::uint32_t>(i));
    return out;
  }
  BackHits totals(const Atlas& atlas) const {
    BackHits b;
    b.rays = rays;
    b.one_sided_rays = one_sided_rays;
    for (std::uint32_t i : triangles()) {
      ++b.triangles;
      b.one_sided_triangles += !atlas.two_sided[i];
    }
    return b;
  }
};

// Pass 0's first tiles as a trial baked them (options.head): into map, the counts and the
// progress; returns the trial's seconds.
double take_given_head(const Atlas& atlas, const PassHead& given, Lightmap& map, BackHitCounts& back,
                       ProgressReporter& progress) {
  for (std::size_t i = 0; i < given.texels.size(); ++i) {
    const AtlasTexel& t = atlas.texels[i];
    map.texels[std::size_t{t.y} * atlas.width + t.x] = given.texels[i];
  }
  back.rays += given.back_rays;
  back.one_sided_rays += given.one_sided_back_rays;
  for (std::uint32_t tri : given.back_triangles) back.hit_from_behind[tri].store(1, std::memory_order_relaxed);
  progress.add(given.texels.size(), given.rays);
  return given.seconds;
}

// What a hemisphere ray that hits triangle h.triangle gathers: black on the back of a
// one-sided triangle; on the back of a two-sided one its back chart (it emits nothing
// there). In bounce 0 with next-event estimation, an emitter's radiance carries the MIS
// weight against the light pdf of that point (area pdf x dist^2 / cos at the emitter).
// Counts the back hits (per work item, added to the totals once).
struct Gatherer {
  const Scene& scene;
  const Atlas& atlas;
  const LightSampler& lights;
  std::uint32_t pass;
  const Lightmap* previous;  // the pass before (pass > 0)
  bool nee;
  MisHeuristic heuristic;
  BackHitCounts& back;

  Vec3 operator()(const Hit& h, const Ray& ray, Vec3 normal, std::uint64_t& back_tile,
                  std::uint64_t& one_sided_tile) const {
    const bool behind = dot(atlas.triangle_normal[h.triangle], ray.direction) >= 0;
    if (behind) {
      ++back_tile;
      back.hit_from_behind[h.triangle].store(1, std::memory_order_relaxed);
      if (!atlas.two_sided[h.triangle]) {
        ++one_sided_tile;
        return {};
      }
    }
    const Material& m = scene.materials[scene.triangles[h.triangle].material];
    if (pass > 0) return m.albedo * previous->bilinear(hit_uv(atlas, h, behind));
    if (behind) return {};
    const float pdf_area = nee ? lights.pdf_area(h.triangle) : 0.0f;
    if (pdf_area == 0) return m.emission;
    const float cos_light = -dot(atlas.triangle_normal[h.triangle], ray.direction);
    const float p_light = pdf_area * (h.t * h.t) / cos_light;
    const float p_hemisphere = dot(normal, ray.direction) * inv_pi;
    return m.emission * mis_weight(p_hemisphere, p_light, heuristic);
  }
};

// Next-event estimation (bounce 0): each texel of the tile's one light sample (ul[k]) as a
// shadow ray towards the emitter, weighted by MIS against the hemisphere sample, into shadow.
void add_light_samples(const Scene& scene, const Atlas& atlas, const LightSampler& lights, Atlas::Tile tile,
                       const std::vector<Vec2>& ul, MisHeuristic heuristic, ShadowBatch& shadow) {
  for (std::size_t k = 0; k < tile.end - tile.begin; ++k) {
    const AtlasTexel& t = atlas.texels[tile.begin + k];
    const LightSample ls = lights.sample(ul[k]);
    Ray ray;
    const RayStart start = ray_start(scene, t);
    ray.origin = start.origin;
    ray.tnear = start.tnear;
    const Vec3 d = ls.point - ray.origin;
    const float dist2 = dot(d, d);
    if (!(dist2 > 0)) continue;
    const float dist = std::sqrt(dist2);
    ray.direction = d / dist;
    // Stop short of the emitter itself: by 1e-4 of the way, and at least by 8 of the
    // emitter's own ray offsets (its point's float error, far from the origin).
    ray.tfar = std::min(dist * (1 - 1e-4f), dist - 8 * surface_offset(scene.triangles[ls.triangle]));
    const float cos_texel = dot(t.normal, ray.direction);
    const float cos_light = -dot(atlas.triangle_normal[ls.triangle], ray.direction);
    if (cos_texel <= 0 || cos_light <= 0) continue;  // below the texel, or the emitter's back
    const float p_light = ls.pdf_area * dist2 / cos_light;
    const float p_hemisphere = cos_texel * inv_pi;
    // Irradiance / pi: L cos / (pi p_light), MIS-weighted.
    const float f = p_hemisphere / p_light * mis_weight(p_light, p_hemisphere, heuristic);
    if (!(f > 0)) continue;
    shadow.add(ray, scene.materials[scene.triangles[ls.triangle].material].emission * f, static_cast<std::uint32_t>(k));
  }
}

// The tile's hemisphere rays of one sample: cosine-distributed from u, in each texel's frame.
void hemisphere_rays(const Scene& scene, const Atlas& atlas, Atlas::Tile tile, const std::vector<Frame>& frames,
                     const std::vector<Vec2>& u, std::vector<Ray>& batch) {
  for (std::size_t k = 0; k < tile.end - tile.begin; ++k) {
    const AtlasTexel& t = atlas.texels[tile.begin + k];
    const RayStart start = ray_start(scene, t);
    batch[k].origin = start.origin;
    batch[k].tnear = start.tnear;
    batch[k].direction = frames[k].to_world(cosine_hemisphere(u[k]));
  }
}

// Random order (the coherence benchmark): a work item's hemisphere rays (all) traced in an
// order shuffled by its first tile (seed), each hit gathered into its texel's sum (owner).
// Returns the rays traced.
std::uint64_t trace_in_random_order(const Scene& scene, const RayTracer& tracer, const Gatherer& gathered,
                                    const std::vector<Ray>& all, const std::vector<std::uint32_t>& owner,
                                    const std::vector<Frame>& frames, std::uint64_t seed, Vec3 sky,
                                    std::vector<Vec3>& sum, std::uint64_t& back_tile, std::uint64_t& one_sided_tile) {
  std::vector<std::uint32_t> perm(all.size());
  std::iota(perm.begin(), perm.end(), 0u);
  std::uint64_t r = splitmix64(seed);
  for (std::size_t i = perm.size(); i > 1; --i) {  // Fisher-Yates
    r = splitmix64(r);
    std::swap(perm[i - 1], perm[r % i]);
  }
  std::vector<Ray> shuffled(all.size());
  for (std::size_t i = 0; i < perm.size(); ++i) shuffled[i] = all[perm[i]];
  std::vector<Hit> all_hits(all.size());
  tracer.intersect(shuffled, all_hits, false);
  for (std::size_t i = 0; i < perm.size(); ++i) {
    const Hit& h = all_hits[i];
    const std::uint32_t k = owner[perm[i]];
    if (h.triangle == no_hit || reaches_sky(scene, h.triangle)) {
      if (gathered.pass == 0) sum[k] += sky;
      continue;
    }
    sum[k] += gathered(h, shuffled[i], frames[k].n, back_tile, one_sided_tile);
  }
  return all.size();
}

// integrate_head's answer: pass 0 of tiles [0, last_tile) as far as the work items went,
// with the texels when every one finished (complete).
void fill_head(const Atlas& atlas, const Lightmap& map, std::size_t last_tile, bool complete, const PassStats& stats,
               std::uint32_t group, std::size_t texels_done, const BackHitCounts& back, PassHead& h) {
  h.tiles = last_tile;
  h.complete = complete;
  h.texels_done = texels_done;
  h.rays = stats.rays;
  h.seconds = stats.seconds;
  h.tiles_per_batch = group;
  h.back_rays = back.rays;
  h.one_sided_back_rays = back.one_sided_rays;
  h.back_triangles = back.triangles();
  if (h.complete) {
    const std::size_t end = last_tile ? atlas.tiles[last_tile - 1].end : 0;
    h.texels.resize(end);
    for (std::size_t i = 0; i < end; ++i) h.texels[i] = map.at(atlas.texels[i].x, atlas.texels[i].y);
  }
}

// One pass's state, shared by its work items.
struct PassContext {
  const Scene& scene;
  const Atlas& atlas;
  const RayTracer& tracer;
  const Sampler& sampler;
  const IntegratorOptions& options;
  const LightSampler& lights;
  const Gatherer& gathered;
  std::uint32_t pass;
  std::uint32_t spp;
  bool nee;     // next-event estimation in bounce 0
  bool gather;  // hemisphere rays (bounces, emitters or a sky)
  Vec3 sky;
  std::size_t first_tile, last_tile;  // the tiles baked here
  std::uint32_t group;                // tiles per work item
  std::optional<Clock::time_point> deadline;
  Lightmap& map;
  BackHitCounts& back;
  std::atomic<std::uint64_t>& texels_done;
  ProgressReporter& progress;

  void stop_now() const {
    if (options.cancel && options.cancel->load(std::memory_order_relaxed)) throw BakeCancelled();
    past_deadline();
  }
  // The deadline every sample batch: a trial's work item may be all its tiles, and a clock
  // read costs nothing beside a batch's rays.
  void past_deadline() const {
    if (deadline && Clock::now() > *deadline) throw TrialStopped{};
  }
};

// Work item gi of a pass: `group` consecutive tiles, whose texels are one range of the atlas,
// into p.map.
void bake_work_item(const PassContext& p, std::size_t gi) {
  p.stop_now();
  const std::size_t first = p.first_tile + gi * p.group, last = std::min(first + p.group, p.last_tile);
  const std::size_t ti = first;  // the random order's shuffle seed (one tile per work item)
  const Atlas::Tile tile{p.atlas.tiles[first].begin, p.atlas.tiles[last - 1].end};
  const std::size_t n = tile.end - tile.begin;
  std::uint64_t rays = 0, back_tile = 0, one_sided_tile = 0;
  std::vector<Vec3> sum(n);
  // Next-event estimation's light, apart from sum: each texel adds its light samples in
  // the order they were drawn, wherever the shadow batches were flushed (their size
  // follows the work item's), so the texel's sum does not depend on tiles_per_batch.
  std::vector<Vec3> light_sum(n);
  if (p.pass == 0) {
    const std::vector<Vec3> direct = direct_analytic(p.scene, p.atlas, tile.begin, tile.end, p.tracer, rays);
    for (std::size_t k = 0; k < n; ++k)
      sum[k] = direct[k] * float(p.spp);  // divided by spp below with the gathered light
  }
  if (p.gather) {
    std::vector<SamplerState> states(n);
    std::vector<Vec2> u(n);
    std::vector<Ray> batch(n);
    std::vector<Hit> hits(n);
    std::vector<Frame> frames;
    frames.reserve(n);
    for (std::size_t k = 0; k < n; ++k) {
      const AtlasTexel& t = p.atlas.texels[tile.begin + k];
      states[k] = p.sampler.start(t.x, t.y, p.pass, hemisphere_pattern);
      frames.emplace_back(t.normal);
    }
    // Next-event estimation (bounce 0): one light sample per hemisphere sample, from the
    // sampler's light pattern (its own scramble and stratum order).
    const bool light_samples = p.pass == 0 && p.nee;
    std::vector<SamplerState> light_states(light_samples ? n : 0);
    std::vector<Vec2> ul(light_samples ? n : 0);
    for (std::size_t k = 0; k < light_states.size(); ++k) {
      const AtlasTexel& t = p.atlas.texels[tile.begin + k];
      light_states[k] = p.sampler.start(t.x, t.y, p.pass, light_pattern);
    }
    ShadowBatch shadow;
    // Random order (benchmark): the tile's n x spp hemisphere rays are generated the same
    // way, then traced in a shuffled order (shadow rays keep their order).
    std::vector<Ray> all;
    std::vector<std::uint32_t> owner;
    for (std::uint32_t s = 0; s < p.spp; ++s) {
      // Every 16 sample batches: cheap, and a cancel lands in milliseconds.
      if (s % 16 == 0) p.stop_now();
      p.past_deadline();
      if (light_samples) {
        p.sampler.generate(light_states, p.sampler.pattern_index(s, light_pattern), ul);
        add_light_samples(p.scene, p.atlas, p.lights, tile, ul, p.options.heuristic, shadow);
        if (shadow.size() >= shadow_batch_rays) rays += shadow.flush(p.tracer, light_sum);
      }
      p.sampler.generate(states, s, u);
      hemisphere_rays(p.scene, p.atlas, tile, frames, u, batch);
      if (!p.options.coherent) {
        all.insert(all.end(), batch.begin(), batch.end());
        for (std::size_t k = 0; k < n; ++k) owner.push_back(static_cast<std::uint32_t>(k));
        continue;
      }
      p.tracer.intersect(batch, hits, true);
      rays += n;
      for (std::size_t k = 0; k < n; ++k) {
        const Hit& h = hits[k];
        if (h.triangle == no_hit || reaches_sky(p.scene, h.triangle)) {
          if (p.pass == 0) sum[k] += p.sky;
          continue;
        }
        sum[k] += p.gathered(h, batch[k], frames[k].n, back_tile, one_sided_tile);
      }
    }
    rays += shadow.flush(p.tracer, light_sum);
    if (!p.options.coherent)
      rays += trace_in_random_order(p.scene, p.tracer, p.gathered, all, owner, frames, ti, p.sky, sum, back_tile,
                                    one_sided_tile);
  }
  for (std::size_t k = 0; k < n; ++k) {
    const AtlasTexel& t = p.atlas.texels[tile.begin + k];
    p.map.texels[std::size_t{t.y} * p.atlas.width + t.x] = (sum[k] + light_sum[k]) / float(p.spp);
  }
  p.back.rays += back_tile;
  p.back.one_sided_rays += one_sided_tile;
  p.texels_done += n;
  p.progress.add(n, rays);
}

// The integrator's one code path. head_tiles: only pass 0 of tiles [0, head_tiles), kept
// undilated in *head_out (integrate_head); else the whole bake, from options.head if given.
IntegratorResult integrate_impl(const Scene& scene, const Atlas& atlas, const RayTracer& tracer,
                                const Sampler& sampler, const IntegratorOptions& options,
                                std::size_t head_tiles, PassHead* head_out,
                                std::optional<Clock::time_point> deadline) {
  IntegratorResult result;
  const bool head_only = head_out != nullptr;
  const std::uint32_t passes = head_only ? 1 : options.bounces + 1;
  const std::uint32_t spp = sampler.count();
  const std::uint32_t group = tiles_per_batch(atlas, tracer, options);
  const PassHead* given = head_only ? nullptr : options.head;
  check_given_head(atlas, given);
  Vec3 sky{};
  for (const Light& l : scene.lights)
    if (l.kind == LightKind::sky) sky += l.intensity;
  bool emissive = false;
  for (const Material& m : scene.materials) emissive |= max_component(m.emission) > 0;
  const LightSampler lights(scene);
  result.light = choose_light_sampling(options.light_sampling, lights);
  result.emissive_triangles = lights.size();
  result.emissive_area_fraction = lights.emissive_area_fraction();
  const bool nee = result.light.mode == LightSampling::mis;

  result.lightmap = {atlas.width, atlas.height, std::vector<Vec3>(atlas.index.size())};
  BackHitCounts back(scene.triangles.size());
  std::atomic<std::uint64_t> texels_done{0};
  for (std::uint32_t pass = 0; pass < passes; ++pass) {
    const auto t0 = Clock::now();
    Lightmap map{atlas.width, atlas.height, std::vector<Vec3>(atlas.index.size())};
    const Lightmap* previous = pass > 0 ? &result.passes.back() : nullptr;
    const bool gather = pass > 0 || emissive || max_component(sky) > 0;
    ProgressReporter progress(options, pass, passes, atlas.texels.size());
    // Tiles [first_tile, last_tile) are baked here; pass 0's first ones may come given.
    std::size_t first_tile = 0, last_tile = head_only ? std::min(head_tiles, atlas.tiles.size()) : atlas.tiles.size();
    double given_seconds = 0;
    if (pass == 0 && given && given->tiles > 0) {
      first_tile = given->tiles;
      given_seconds = take_given_head(atlas, *given, map, back, progress);
    }
    const Gatherer gathered{scene, atlas, lights, pass, previous, nee, options.heuristic, back};
    const PassContext context{.scene = scene,
                              .atlas = atlas,
                              .tracer = tracer,
                              .sampler = sampler,
                              .options = options,
                              .lights = lights,
                              .gathered = gathered,
                              .pass = pass,
                              .spp = spp,
                              .nee = nee,
                              .gather = gather,
                              .sky = sky,
                              .first_tile = first_tile,
                              .last_tile = last_tile,
                              .group = group,
                              .deadline = deadline,
                              .map = map,
                              .back = back,
                              .texels_done = texels_done,
                              .progress = progress};
    const std::size_t groups = (last_tile - first_tile + group - 1) / group;
    bool stopped = false;
    try {
      tbb::parallel_for(
          std::size_t{0}, groups, [&](std::size_t gi) { bake_work_item(context, gi); }, tbb::simple_partitioner());
    } catch (const TrialStopped&) {
      stopped = true;
    }
    progress.finish();

    PassStats stats;
    stats.seconds = given_seconds + since(t0);
    stats.rays = progress.rays();
    if (head_only) {
      fill_head(atlas, map, last_tile, !stopped, stats, group, texels_done, back, *head_out);
      return result;
    }
    const auto t1 = Clock::now();
    dilate(map, atlas, atlas.options.gutter + 1);
    stats.dilate_seconds = since(t1);
    for (std::size_t i = 0; i < map.texels.size(); ++i) result.lightmap.texels[i] += map.texels[i];
    result.passes.push_back(std::move(map));
    result.stats.push_back(stats);
  }
  result.back_hits = back.totals(atlas);
  return result;
}

}  // namespace

IntegratorResult integrate(const Scene& scene, const Atlas& atlas, const RayTracer& tracer,
                           const Sampler& sampler, const IntegratorOptions& options) {
  return integrate_impl(scene, atlas, tracer, sampler, options, 0, nullptr, std::nullopt);
}

PassHead integrate_head(const Scene& scene, const Atlas& atlas, const RayTracer& tracer, const Sampler& sampler,
                        const IntegratorOptions& options, std::size_t tiles,
                        std::optional<std::chrono::steady_clock::time_point> deadline) {
  PassHead head;
  IntegratorOptions o = options;
  o.head = nullptr;
  integrate_impl(scene, atlas, tracer, sampler, o, tiles, &head, deadline);
  return head;
}

}  // namespace mixforge::baker
