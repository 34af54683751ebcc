#pragma once
// Internal to the Vulkan back end: the scene's acceleration structures on a VulkanDevice. One
// BLAS over the scene's triangles (unindexed: triangle i is vertices 3i..3i+2, so
// gl_PrimitiveID is the triangle's index) and a TLAS with one instance (identity transform,
// both faces, as Embree), built once by one submission.
#include "baker/scene/scene.hpp"
#include "baker/trace/vulkan_device.hpp"

namespace mixforge::baker::vk {

class VulkanAcceleration {
 public:
  VulkanAcceleration(const VulkanDevice& device, const Scene& scene);
  ~VulkanAcceleration();
  VulkanAcceleration(const VulkanAcceleration&) = delete;
  VulkanAcceleration& operator=(const VulkanAcceleration&) = delete;

  // A scene without triangles has no structures: every ray misses.
  bool empty() const { return tlas_ == VK_NULL_HANDLE; }
  VkAccelerationStructureKHR top_level() const { return tlas_; }

 private:
  void build(const Scene& scene);
  void release();

  const VulkanDevice& device_;
  Buffer blas_buffer_, tlas_buffer_;
  VkAccelerationStructureKHR blas_ = VK_NULL_HANDLE, tlas_ = VK_NULL_HANDLE;
};

}  // namespace mixforge::baker::vk
