#pragma once
// Internal to the Vulkan back end: the ray-tracing pipeline on a VulkanDevice. Its descriptor
// set (binding 0 the TLAS, 1 the input buffer, 2 the output buffer), the push constants, the
// raygen / miss / closest-hit shaders (baker/trace/shaders/) and the shader binding table.
#include <cstdint>
#include <vector>

#include "baker/trace/vulkan_device.hpp"

namespace mixforge::baker::vk {

// The raygen shader's push constants.
struct Push {
  std::uint32_t mode, count, spp, sample, pass, seed_lo, seed_hi;
};
enum Mode : std::uint32_t { mode_intersect = 0, mode_occluded = 1, mode_directions = 2 };

// The raygen shader's SPIR-V for these options: the default family's, compiled in at build
// time, or the mixers' exported GLSL (or the override) compiled now by glslang
// (std::invalid_argument when it does not compile).
std::vector<std::uint32_t> raygen_spirv(const VulkanOptions& options);

class VulkanPipeline {
 public:
  VulkanPipeline(const VulkanDevice& device, const std::vector<std::uint32_t>& raygen);
  ~VulkanPipeline();
  VulkanPipeline(const VulkanPipeline&) = delete;
  VulkanPipeline& operator=(const VulkanPipeline&) = delete;

  // Points descriptor binding 0 at the TLAS.
  void bind_acceleration_structure(VkAccelerationStructureKHR tlas) const;
  // Points descriptor bindings 1 and 2 at the input and output buffers.
  void bind_buffers(const Buffer& input, const Buffer& output) const;
  // Records one launch of push.count raygen invocations and the barrier that makes their
  // writes visible to the host.
  void record_trace(VkCommandBuffer cmd, const Push& push) const;

 private:
  void create(const std::vector<std::uint32_t>& raygen);
  void release();
  VkShaderModule module(const std::uint32_t* code, std::size_t words) const;

  const VulkanDevice& device_;
  VkDescriptorSetLayout set_layout_ = VK_NULL_HANDLE;
  VkPipelineLayout pipeline_layout_ = VK_NULL_HANDLE;
  VkPipeline pipeline_ = VK_NULL_HANDLE;
  VkDescriptorPool descriptor_pool_ = VK_NULL_HANDLE;
  VkDescriptorSet set_ = VK_NULL_HANDLE;
  Buffer sbt_;
  VkStridedDeviceAddressRegionKHR raygen_region_{}, miss_region_{}, hit_region_{};
};

}  // namespace mixforge::baker::vk
