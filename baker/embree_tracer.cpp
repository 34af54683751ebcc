#include "baker/embree_tracer.hpp"

#include <embree3/rtcore.h>

#include <cstring>
#include <stdexcept>
#include <string>

namespace mixforge::baker {
namespace {

// Embree reports device errors through a callback; the last one becomes the exception.
void on_error(void* user, RTCError code, const char* message) {
  auto* last = static_cast<std::string*>(user);
  *last = "Embree error " + std::to_string(int(code)) + ": " + (message ? message : "");
}

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
    return mode_ == EmbreeMode::single ? "embree" : "embree-packet16";
  }

  void intersect(std::span<const Ray> rays, std::span<Hit> hits, bool coherent) const override {
    RTCIntersectContext ctx;
    rtcInitIntersectContext(&ctx);
    ctx.flags = coherent ? RTC_INTERSECT_CONTEXT_FLAG_COHERENT : RTC_INTERSECT_CONTEXT_FLAG_INCOHERENT;
    if (mode_ == EmbreeMode::packet16) {
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
      return;
    }
    for (std::size_t i = 0; i < rays.size(); ++i) {
      RTCRayHit rh;
      const Ray& r = rays[i];
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
      rtcIntersect1(scene_, &ctx, &rh);
      hits[i] = rh.hit.geomID == RTC_INVALID_GEOMETRY_ID
                    ? Hit{}
                    : Hit{rh.hit.primID, rh.ray.tfar, rh.hit.u, rh.hit.v};
    }
  }

  void occluded(std::span<const Ray> rays, std::span<std::uint8_t> out, bool coherent) const override {
    RTCIntersectContext ctx;
    rtcInitIntersectContext(&ctx);
    ctx.flags = coherent ? RTC_INTERSECT_CONTEXT_FLAG_COHERENT : RTC_INTERSECT_CONTEXT_FLAG_INCOHERENT;
    for (std::size_t i = 0; i < rays.size(); ++i) {
      RTCRay ray;
      const Ray& r = rays[i];
      ray.org_x = r.origin.x;
      ray.org_y = r.origin.y;
      ray.org_z = r.origin.z;
      ray.dir_x = r.direction.x;
      ray.dir_y = r.direction.y;
      ray.dir_z = r.direction.z;
      ray.tnear = r.tnear;
      ray.tfar = r.tfar;
      ray.time = 0;
      ray.mask = 0xffffffffu;
      ray.id = 0;
      ray.flags = 0;
      rtcOccluded1(scene_, &ctx, &ray);
      out[i] = ray.tfar < 0;  // Embree sets tfar to -inf on a hit
    }
  }

 private:
  void release() {
    if (scene_) rtcReleaseScene(scene_);
    if (device_) rtcReleaseDevice(device_);
    scene_ = nullptr;
    device_ = nullptr;
  }
  EmbreeMode mode_;
  std::string last_error_;
  RTCDevice device_ = nullptr;
  RTCScene scene_ = nullptr;
};

}  // namespace

std::unique_ptr<RayTracer> make_embree_tracer(const Scene& scene, EmbreeMode mode) {
  return std::make_unique<EmbreeTracer>(scene, mode);
}

}  // namespace mixforge::baker
