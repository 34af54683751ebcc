#include "baker/trace/vulkan_tracer.hpp"

// The tracer on three pieces, each in its own file and all internal to the back end:
// VulkanDevice (vulkan_device.*: the loader, instance, device, queue, buffers), VulkanPipeline
// (vulkan_pipeline.*: shaders, descriptor set, shader binding table; glslang for a user's
// mixers) and VulkanAcceleration (vulkan_acceleration.*: the scene's BLAS and TLAS). Here:
// the input / output buffers and the launches that fill and read them.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <mutex>
#include <vector>

#include "baker/trace/vulkan_acceleration.hpp"
#include "baker/trace/vulkan_device.hpp"
#include "baker/trace/vulkan_pipeline.hpp"

namespace mixforge::baker {
namespace {

using vk::Buffer;
using vk::Mode;
using vk::mode_directions;
using vk::mode_intersect;
using vk::mode_occluded;
using vk::Push;

// Rays per call the integrator aims for (RayTracer::batch_rays). On lavapipe (2 cores, load
// ~7) the Cornell bake ran 1.9x faster from 4 tiles (~900 rays) a call up, 2.0x at 16-64 and
// 1.9x at this size (298 tiles there), against one tile a call (bench/bake_vulkan_batch.sh,
// bench/results/bake/vulkan_batch.txt); a GPU fills only with tens of thousands of rays.
constexpr std::size_t vulkan_batch_rays = std::size_t{1} << 16;

class VulkanTracerImpl final : public VulkanTracer {
 public:
  // The raygen shader is compiled (a user's mixers) once the device exists; the acceleration
  // structures are built last and bound to the pipeline's descriptor set.
  VulkanTracerImpl(const Scene& scene, const VulkanOptions& options)
      : device_(options.fence_timeout), pipeline_(device_, vk::raygen_spirv(options)), acceleration_(device_, scene) {
    if (!acceleration_.empty()) pipeline_.bind_acceleration_structure(acceleration_.top_level());
  }

  ~VulkanTracerImpl() override {
    if (device_.lost()) return;  // a shader still runs: everything leaks (VulkanDevice)
    device_.wait_idle();
    device_.destroy(input_);
    device_.destroy(output_);
  }

  std::string device_name() const override { return device_.choice().props.deviceName; }
  std::string name() const override { return "vulkan"; }
  // Each call pays a submission and a fence wait, and the queue is one (calls take turns):
  // the integrator batches several tiles per call to reach this many rays.
  std::size_t batch_rays() const override { return vulkan_batch_rays; }

  void intersect(std::span<const Ray> rays, std::span<Hit> hits, bool) const override {
    if (acceleration_.empty()) {
      std::fill(hits.begin(), hits.end(), Hit{});
      return;
    }
    run_rays(rays, mode_intersect, 4, [&](std::size_t base, std::size_t n, const std::uint32_t* w) {
      for (std::size_t k = 0; k < n; ++k) {
        Hit& h = hits[base + k];
        h.triangle = w[4 * k];
        if (h.triangle == no_hit) {
          h = Hit{};
          continue;
        }
        std::memcpy(&h.t, &w[4 * k + 1], 4);
        std::memcpy(&h.u, &w[4 * k + 2], 4);
        std::memcpy(&h.v, &w[4 * k + 3], 4);
      }
    });
  }

  void occluded(std::span<const Ray> rays, std::span<std::uint8_t> out, bool) const override {
    if (acceleration_.empty()) {
      std::fill(out.begin(), out.end(), std::uint8_t{0});
      return;
    }
    run_rays(rays, mode_occluded, 1, [&](std::size_t base, std::size_t n, const std::uint32_t* w) {
      for (std::size_t k = 0; k < n; ++k) out[base + k] = w[k] != 0;
    });
  }

  void cmj_directions(std::span<const DirectionTexel> texels, std::uint32_t spp, std::uint64_t seed,
                      std::uint32_t pass, std::uint32_t sample,
                      std::span<GeneratedDirection> out) const override {
    if (spp == 0 || sample >= spp)
      throw std::invalid_argument("cmj_directions: sample " + std::to_string(sample) + " of a set of " +
                                  std::to_string(spp));
    if (out.size() < texels.size()) throw std::invalid_argument("cmj_directions: output too small");
    std::lock_guard lock(mutex_);
    for (std::size_t base = 0; base < texels.size(); base += device_.max_launch()) {
      const std::size_t n = std::min<std::size_t>(device_.max_launch(), texels.size() - base);
      reserve(n * 8 * 4, n * 8 * 4);
      auto* in = static_cast<std::uint32_t*>(input_.mapped);
      for (std::size_t k = 0; k < n; ++k) {
        const DirectionTexel& t = texels[base + k];
        const float nrm[4] = {t.normal.x, t.normal.y, t.normal.z, 0};
        in[8 * k + 0] = t.x;
        in[8 * k + 1] = t.y;
        in[8 * k + 2] = in[8 * k + 3] = 0;
        std::memcpy(&in[8 * k + 4], nrm, sizeof nrm);
      }
      submit({mode_directions, static_cast<std::uint32_t>(n), spp, sample, pass,
              static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32)});
      const auto* w = static_cast<const float*>(output_.mapped);
      for (std::size_t k = 0; k < n; ++k) {
        const float* f = w + 8 * k;
        out[base + k] = {{f[0], f[1]}, {f[2], f[3], f[4]}, {f[5], f[6], f[7]}};
      }
    }
  }

 private:
  template <class Read>
  void run_rays(std::span<const Ray> rays, Mode mode, std::size_t out_words, Read read) const {
    std::lock_guard lock(mutex_);
    for (std::size_t base = 0; base < rays.size(); base += device_.max_launch()) {
      const std::size_t n = std::min<std::size_t>(device_.max_launch(), rays.size() - base);
      reserve(n * 8 * 4, n * out_words * 4);
      auto* in = static_cast<float*>(input_.mapped);
      for (std::size_t k = 0; k < n; ++k) {
        const Ray& r = rays[base + k];
        // Vulkan needs finite, non-negative extents; "infinity" becomes a huge distance.
        const float tfar = std::isfinite(r.tfar) ? r.tfar : 3.0e38f;
        const float w[8] = {r.origin.x, r.origin.y, r.origin.z, std::max(r.tnear, 0.0f),
                            r.direction.x, r.direction.y, r.direction.z, tfar};
        std::memcpy(&in[8 * k], w, sizeof w);
      }
      submit({mode, static_cast<std::uint32_t>(n), 0, 0, 0, 0, 0});
      read(base, n, static_cast<const std::uint32_t*>(output_.mapped));
    }
  }

  // Grows the input / output buffers (doubling) and points the descriptors at them.
  void reserve(VkDeviceSize in_bytes, VkDeviceSize out_bytes) const {
    bool changed = false;
    for (auto [b, bytes] : {std::pair{&input_, in_bytes}, std::pair{&output_, out_bytes}}) {
      if (b->size >= bytes) continue;
      const VkDeviceSize size = std::max<VkDeviceSize>(bytes, 2 * b->size);
      device_.destroy(*b);
      *b = device_.make_buffer(std::max<VkDeviceSize>(size, 256), VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, true);
      changed = true;
    }
    if (changed) pipeline_.bind_buffers(input_, output_);
  }

  void submit(const Push& push) const {
    device_.one_shot([&](VkCommandBuffer cmd) { pipeline_.record_trace(cmd, push); });
  }

  // Destroyed in reverse: the structures and the pipeline before the device they stand on.
  vk::VulkanDevice device_;
  vk::VulkanPipeline pipeline_;
  vk::VulkanAcceleration acceleration_;
  // Everything below changes per call, under the mutex.
  mutable std::mutex mutex_;
  mutable Buffer input_, output_;
};

}  // namespace

std::unique_ptr<VulkanTracer> make_vulkan_tracer(const Scene& scene, const VulkanOptions& options) {
  return std::make_unique<VulkanTracerImpl>(scene, options);
}

}  // namespace mixforge::baker
