#include "baker/trace/embree_tracer.hpp"

#include <embree3/rtcore.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace mixforge::baker {
namespace {

// Embree reports device errors through a callback; the last one becomes the exception.
void on_error(void* user, RTCError code, const char* message) {
  auto* last = static_cast<std::string*>(user);
  *last = "Embree error " + std::to_string(int(code)) + ": " + (message ? message : "");
}

RTCRayHit to_embree(const Ray& r) {
  RTCRayHit rh;
  rh.ray.org_x = r.origin.x;
  rh.ray.org_y = r.origin.y;
  rh.ray.org_z = r.origin.z;
  rh.ray.dir_x = r.direction.x;
  rh.ray.dir_y = r.direction.y;
  rh.ray.dir_z = r.direction.z;
  rh.ray.tnear = r.tnear;
  rh.ray.tfar = r.tfar;
  rh.ray.time = 0;
  rh.ray.mask = 0xffffffffu;
  rh.ray.id = 0;
  rh.ray.flags = 0;
  rh.hit.geomID = RTC_INVALID_GEOMETRY_ID;
  rh.hit.instID[0] = RTC_INVALID_GEOMETRY_ID;
  return rh;
}

Hit from_embree(const RTCRayHit& rh) {
  return rh.hit.geomID == RTC_INVALID_GEOMETRY_ID ? Hit{} : Hit{rh.hit.primID, rh.ray.tfar, rh.hit.u, rh.hit.v};
}

// One-at-a-time calls or one stream call per coherent batch, whichever measures faster
// (EmbreeMode::measured): the first batches go alternately to each until both have traced
// calibration_rays; after that the faster per ray serves, but every explore_period-th call
// and the one after it (the other way, then the chosen one, so both meet the same load)
// are timed again, so the choice follows the tallies over the whole bake, not only its
// first tiles. Thread-safe (atomic tallies). The two ways break ties between coincident
// triangles differently, so the answers can depend on the choice (embree_tracer.hpp).
class StreamChoice {
 public:
  template <class Single, class Stream>
  void run(std::size_t rays, Single&& single, Stream&& stream) const {
    const unsigned call = calls_.fetch_add(1, std::memory_order_relaxed);
    const int chosen = chosen_.load(std::memory_order_acquire);
    int way = chosen;
    bool timed = true;
    if (chosen < 0) way = static_cast<int>(call % 2);
    else if (call % explore_period == 0) way = 1 - chosen;
    else if (call % explore_period != 1) timed = false;
    if (!timed) return way == 1 ? stream() : single();
    const auto t0 = std::chrono::steady_clock::now();
    way == 1 ? stream() : single();
    const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0);
    ns_[way].fetch_add(static_cast<std::uint64_t>(ns.count()), std::memory_order_relaxed);
    rays_[way].fetch_add(rays, std::memory_order_relaxed);
    if (rays_[0].load(std::memory_order_relaxed) >= calibration_rays &&
        rays_[1].load(std::memory_order_relaxed) >= calibration_rays)
      chosen_.store(per_ray(1) < per_ray(0) ? 1 : 0, std::memory_order_release);
  }

  // "rtcIntersect1M streams (streams 1.16x rtcIntersect1 per ray, timed on N rays)", or
  // what ran while too few rays were timed.
  std::string describe(const std::string& single_name, const std::string& stream_name) const {
    const int chosen = chosen_.load(std::memory_order_acquire);
    if (chosen < 0)
      return single_name + (calls_.load() ? " (too few coherent rays to time streams)" : " (no coherent batches)");
    char ratio[32];
    std::snprintf(ratio, sizeof ratio, "%.2f", per_ray(0) / per_ray(1));
    return (chosen == 1 ? stream_name + " streams" : single_name) + " (streams " + ratio + "x " + single_name +
           " per ray, timed on " + std::to_string(rays_[0].load() + rays_[1].load()) + " rays)";
  }

 private:
  static constexpr std::uint64_t calibration_rays = 65536;
  static constexpr unsigned explore_period = 32;

  double per_ray(int way) const {
    return static_cast<double>(ns_[way].load(std::memory_order_relaxed)) /
           static_cast<double>(rays_[way].load(std::memory_order_relaxed));
  }

  // Index 0: one ray per call; 1: one stream per batch. chosen_: -1 until both were timed.
  mutable std::atomic<unsigned> calls_{0};
  mutable std::atomic<std::uint64_t> ns_[2]{}, rays_[2]{};
  mutable std::atomic<int> chosen_{-1};
};

class EmbreeTracer final : public RayTracer {
 public:
  EmbreeTracer(const Scene& scene, EmbreeMode mode) : mode_(mode) {
    device_ = rtcNewDevice(nullptr);
    if (!device_) throw std::runtime_error("Embree: rtcNewDevice failed");
    rtcSetDeviceErrorFunction(device_, on_error, &last_error_);
    scene_ = rtcNewScene(device_);
    rtcSetSceneFlags(scene_, RTC_SCENE_FLAG_ROBUST);
    rtcSetSceneBuildQuality(scene_, RTC_BUILD_QUALITY_HIGH);
    RTCGeometry geom = rtcNewGeometry(device_, RTC_GEOMETRY_TYPE_TRIANGLE);
    const std::size_t n = scene.triangles.size();
    auto* vertices = static_cast<float*>(rtcSetNewGeometryBuffer(
        geom, RTC_BUFFER_TYPE_VERTEX, 0, RTC_FORMAT_FLOAT3, 3 * sizeof(float), 3 * n));
    auto* indices = static_cast<unsigned*>(rtcSetNewGeometryBuffer(
        geom, RTC_BUFFER_TYPE_INDEX, 0, RTC_FORMAT_UINT3, 3 * sizeof(unsigned), n));
    if (!vertices || !indices) {
      rtcReleaseGeometry(geom);
      const std::string why = last_error_;
      release();
      throw std::runtime_error("Embree: cannot allocate geometry buffers: " + why);
    }
    for (std::size_t i = 0; i < n; ++i)
      for (int k = 0; k < 3; ++k) {
        const Vec3 v = scene.triangles[i].v[k];
        vertices[9 * i + 3 * k + 0] = v.x;
        vertices[9 * i + 3 * k + 1] = v.y;
        vertices[9 * i + 3 * k + 2] = v.z;
        indices[3 * i + k] = static_cast<unsigned>(3 * i + k);
      }
    rtcCommitGeometry(geom);
    rtcAttachGeometry(scene_, geom);
    rtcReleaseGeometry(geom);
    rtcCommitScene(scene_);
    if (!last_error_.empty()) {
      const std::string why = last_error_;
      release();
      throw std::runtime_error(why);
    }
  }
  ~EmbreeTracer() override { release(); }

  std::string name() const override {
    switch (mode_) {
      case EmbreeMode::packet16: return "embree-packet16";
      case EmbreeMode::stream: return "embree-stream";
      default: return "embree";  // single, coherent_streams, measured
    }
  }

  void intersect(std::span<const Ray> rays, std::span<Hit> hits, bool coherent) const override {
    RTCIntersectContext ctx;
    rtcInitIntersectContext(&ctx);
    ctx.flags = coherent ? RTC_INTERSECT_CONTEXT_FLAG_COHERENT : RTC_INTERSECT_CONTEXT_FLAG_INCOHERENT;
    switch (mode_) {
      case EmbreeMode::single: return trace_single(rays, hits, ctx);
      case EmbreeMode::packet16: return trace_packets(rays, hits, ctx);
      case EmbreeMode::stream: return trace_stream(rays, hits, ctx);
      case EmbreeMode::coherent_streams: return coherent ? trace_stream(rays, hits, ctx) : trace_single(rays, hits, ctx);
      case EmbreeMode::measured: break;
    }
    if (!coherent) return trace_single(rays, hits, ctx);  // packets of unrelated rays only lose
    hits_choice_.run(
        rays.size(), [&] { trace_single(rays, hits, ctx); }, [&] { trace_stream(rays, hits, ctx); });
  }

  std::string traversal() const override {
    switch (mode_) {
      case EmbreeMode::single: return "rtcIntersect1, rtcOccluded1";
      case EmbreeMode::packet16: return "rtcIntersect16, rtcOccluded1M";
      case EmbreeMode::stream: return "rtcIntersect1M, rtcOccluded1M";
      case EmbreeMode::coherent_streams:
        return "coherent batches as streams (rtcIntersect1M, rtcOccluded1M), other rays one per call "
               "(rtcIntersect1, rtcOccluded1)";
      case EmbreeMode::measured: break;
    }
    return "by measurement, for coherent batches: closest hits " +
           hits_choice_.describe("rtcIntersect1", "rtcIntersect1M") + "; shadow rays " +
           shadow_choice_.describe("rtcOccluded1", "rtcOccluded1M");
  }

  void occluded(std::span<const Ray> rays, std::span<std::uint8_t> out, bool coherent) const override {
    RTCIntersectContext ctx;
    rtcInitIntersectContext(&ctx);
    ctx.flags = coherent ? RTC_INTERSECT_CONTEXT_FLAG_COHERENT : RTC_INTERSECT_CONTEXT_FLAG_INCOHERENT;
    if (mode_ == EmbreeMode::stream || mode_ == EmbreeMode::packet16) return occluded_stream(rays, out, ctx);
    if (mode_ == EmbreeMode::single || !coherent) return occluded_single(rays, out, ctx);
    if (mode_ == EmbreeMode::coherent_streams) return occluded_stream(rays, out, ctx);
    shadow_choice_.run(
        rays.size(), [&] { occluded_single(rays, out, ctx); }, [&] { occluded_stream(rays, out, ctx); });
  }

 private:
  void occluded_single(std::span<const Ray> rays, std::span<std::uint8_t> out, RTCIntersectContext& ctx) const {
    for (std::size_t i = 0; i < rays.size(); ++i) {
      RTCRay ray = to_embree(rays[i]).ray;
      rtcOccluded1(scene_, &ctx, &ray);
      out[i] = ray.tfar < 0;  // Embree sets tfar to -inf on a hit
    }
  }

  // One call for the whole batch (rtcIntersect16 has no shadow twin here: packet16 mode
  // traces shadow rays as a stream too).
  void occluded_stream(std::span<const Ray> rays, std::span<std::uint8_t> out, RTCIntersectContext& ctx) const {
    thread_local std::vector<RTCRay> stream;
    stream.resize(rays.size());
    for (std::size_t i = 0; i < rays.size(); ++i) stream[i] = to_embree(rays[i]).ray;
    rtcOccluded1M(scene_, &ctx, stream.data(), static_cast<unsigned>(stream.size()), sizeof(RTCRay));
    for (std::size_t i = 0; i < rays.size(); ++i) out[i] = stream[i].tfar < 0;
  }

  void trace_single(std::span<const Ray> rays, std::span<Hit> hits, RTCIntersectContext& ctx) const {
    for (std::size_t i = 0; i < rays.size(); ++i) {
      RTCRayHit rh = to_embree(rays[i]);
      rtcIntersect1(scene_, &ctx, &rh);
      hits[i] = from_embree(rh);
    }
  }

  // One call for the whole batch: with the coherent flag Embree forms packets itself.
  void trace_stream(std::span<const Ray> rays, std::span<Hit> hits, RTCIntersectContext& ctx) const {
    thread_local std::vector<RTCRayHit> stream;  // one per thread: no allocation per batch
    stream.resize(rays.size());
    for (std::size_t i = 0; i < rays.size(); ++i) stream[i] = to_embree(rays[i]);
    rtcIntersect1M(scene_, &ctx, stream.data(), static_cast<unsigned>(stream.size()), sizeof(RTCRayHit));
    for (std::size_t i = 0; i < rays.size(); ++i) hits[i] = from_embree(stream[i]);
  }

  void trace_packets(std::span<const Ray> rays, std::span<Hit> hits, RTCIntersectContext& ctx) const {
    for (std::size_t base = 0; base < rays.size(); base += 16) {
      alignas(64) RTCRayHit16 rh;
      alignas(64) int valid[16];
      const std::size_t count = std::min<std::size_t>(16, rays.size() - base);
      for (std::size_t k = 0; k < 16; ++k) {
        valid[k] = k < count ? -1 : 0;
        const Ray& r = rays[base + (k < count ? k : 0)];
        rh.ray.org_x[k] = r.origin.x;
        rh.ray.org_y[k] = r.origin.y;
        rh.ray.org_z[k] = r.origin.z;
        rh.ray.dir_x[k] = r.direction.x;
        rh.ray.dir_y[k] = r.direction.y;
        rh.ray.dir_z[k] = r.direction.z;
        rh.ray.tnear[k] = r.tnear;
        rh.ray.tfar[k] = r.tfar;
        rh.ray.time[k] = 0;
        rh.ray.mask[k] = 0xffffffffu;
        rh.ray.id[k] = 0;
        rh.ray.flags[k] = 0;
        rh.hit.geomID[k] = RTC_INVALID_GEOMETRY_ID;
        rh.hit.instID[0][k] = RTC_INVALID_GEOMETRY_ID;
      }
      rtcIntersect16(valid, scene_, &ctx, &rh);
      for (std::size_t k = 0; k < count; ++k) {
        Hit& h = hits[base + k];
        if (rh.hit.geomID[k] == RTC_INVALID_GEOMETRY_ID) {
          h = Hit{};
        } else {
          h = {rh.hit.primID[k], rh.ray.tfar[k], rh.hit.u[k], rh.hit.v[k]};
        }
      }
    }
  }

  void release() {
    if (scene_) rtcReleaseScene(scene_);
    if (device_) rtcReleaseDevice(device_);
    scene_ = nullptr;
    device_ = nullptr;
  }
  EmbreeMode mode_;
  // EmbreeMode::measured: one choice for closest hits, one for shadow rays (their costs
  // differ: a shadow ray stops at its first hit).
  StreamChoice hits_choice_, shadow_choice_;
  std::string last_error_;
  RTCDevice device_ = nullptr;
  RTCScene scene_ = nullptr;
};

}  // namespace

std::unique_ptr<RayTracer> make_embree_tracer(const Scene& scene, EmbreeMode mode) {
  return std::make_unique<EmbreeTracer>(scene, mode);
}

}  // namespace mixforge::baker
