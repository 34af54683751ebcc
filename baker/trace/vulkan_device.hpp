#pragma once
// Internal to the Vulkan back end (baker/trace/vulkan_*.cpp): the one header of the baker that
// includes Vulkan. The loader opened at run time (dlopen), so a machine without libvulkan gets
// VulkanUnavailable, not a binary that cannot start; the instance, the chosen physical device
// and the logical device with its one queue, command buffer and fence; buffers.
#define VK_NO_PROTOTYPES
#include <vulkan/vulkan.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>

#include "baker/trace/vulkan_tracer.hpp"

namespace mixforge::baker::vk {

#define MIXFORGE_VK_INSTANCE_FUNCTIONS(X)     \
  X(vkDestroyInstance)                        \
  X(vkEnumeratePhysicalDevices)               \
  X(vkGetPhysicalDeviceProperties)            \
  X(vkGetPhysicalDeviceProperties2)           \
  X(vkGetPhysicalDeviceFeatures2)             \
  X(vkGetPhysicalDeviceQueueFamilyProperties) \
  X(vkGetPhysicalDeviceMemoryProperties)      \
  X(vkEnumerateDeviceExtensionProperties)     \
  X(vkCreateDevice)                           \
  X(vkGetDeviceProcAddr)

#define MIXFORGE_VK_DEVICE_FUNCTIONS(X)         \
  X(vkDestroyDevice)                            \
  X(vkGetDeviceQueue)                           \
  X(vkDeviceWaitIdle)                           \
  X(vkCreateBuffer)                             \
  X(vkDestroyBuffer)                            \
  X(vkGetBufferMemoryRequirements)              \
  X(vkAllocateMemory)                           \
  X(vkFreeMemory)                               \
  X(vkBindBufferMemory)                         \
  X(vkMapMemory)                                \
  X(vkGetBufferDeviceAddress)                   \
  X(vkCreateShaderModule)                       \
  X(vkDestroyShaderModule)                      \
  X(vkCreateDescriptorSetLayout)                \
  X(vkDestroyDescriptorSetLayout)               \
  X(vkCreatePipelineLayout)                     \
  X(vkDestroyPipelineLayout)                    \
  X(vkDestroyPipeline)                          \
  X(vkCreateDescriptorPool)                     \
  X(vkDestroyDescriptorPool)                    \
  X(vkAllocateDescriptorSets)                   \
  X(vkUpdateDescriptorSets)                     \
  X(vkCreateCommandPool)                        \
  X(vkDestroyCommandPool)                       \
  X(vkAllocateCommandBuffers)                   \
  X(vkBeginCommandBuffer)                       \
  X(vkEndCommandBuffer)                         \
  X(vkResetCommandBuffer)                       \
  X(vkCmdBindPipeline)                          \
  X(vkCmdBindDescriptorSets)                    \
  X(vkCmdPushConstants)                         \
  X(vkCmdPipelineBarrier)                       \
  X(vkCreateFence)                              \
  X(vkDestroyFence)                             \
  X(vkResetFences)                              \
  X(vkWaitForFences)                            \
  X(vkQueueSubmit)                              \
  X(vkCreateAccelerationStructureKHR)           \
  X(vkDestroyAccelerationStructureKHR)          \
  X(vkGetAccelerationStructureBuildSizesKHR)    \
  X(vkCmdBuildAccelerationStructuresKHR)        \
  X(vkGetAccelerationStructureDeviceAddressKHR) \
  X(vkCreateRayTracingPipelinesKHR)             \
  X(vkGetRayTracingShaderGroupHandlesKHR)       \
  X(vkCmdTraceRaysKHR)

std::string vk_error(const char* what, VkResult r);
// Throws std::runtime_error naming the call and its VkResult unless r is VK_SUCCESS.
void check(VkResult r, const char* what);

constexpr VkDeviceSize align_up(VkDeviceSize v, VkDeviceSize a) { return a ? (v + a - 1) / a * a : v; }

// The loader, an instance and the instance- and device-level functions.
struct Api {
  void* library = nullptr;
  PFN_vkGetInstanceProcAddr get_instance_proc = nullptr;
  VkInstance instance = VK_NULL_HANDLE;
#define MIXFORGE_DECLARE(name) PFN_##name name = nullptr;
  MIXFORGE_VK_INSTANCE_FUNCTIONS(MIXFORGE_DECLARE)
  MIXFORGE_VK_DEVICE_FUNCTIONS(MIXFORGE_DECLARE)
#undef MIXFORGE_DECLARE

  Api();  // VulkanUnavailable: no loader, a loader below 1.2, no instance
  void load_device(VkDevice device);
  // Leaves everything in place (a device stuck in a shader cannot be destroyed safely).
  void abandon() {
    instance = VK_NULL_HANDLE;
    library = nullptr;
  }
  ~Api();
  Api(const Api&) = delete;
  Api& operator=(const Api&) = delete;
};

struct DeviceChoice {
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  std::uint32_t family = 0;
  VkPhysicalDeviceProperties props{};
  VkPhysicalDeviceRayTracingPipelinePropertiesKHR rt{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_RAY_TRACING_PIPELINE_PROPERTIES_KHR};
  VkPhysicalDeviceAccelerationStructurePropertiesKHR as{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ACCELERATION_STRUCTURE_PROPERTIES_KHR};
};

// The first device (GPUs before CPU implementations) with the extensions, the features and a
// compute queue; else VulkanUnavailable listing what each device lacks.
DeviceChoice choose_device(const Api& api);

struct Buffer {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  void* mapped = nullptr;
  VkDeviceAddress address = 0;
  VkDeviceSize size = 0;
};

// The loader, the instance, the chosen physical device and the logical device with its one
// queue, one command buffer and one fence. Not thread-safe: the tracer serialises calls.
// Once a submission has timed out (lost()), everything is leaked on destruction rather than
// blocking in vkDestroy*, here and in the pipeline and acceleration structures built on it.
class VulkanDevice {
 public:
  explicit VulkanDevice(std::chrono::milliseconds fence_timeout);
  ~VulkanDevice();
  VulkanDevice(const VulkanDevice&) = delete;
  VulkanDevice& operator=(const VulkanDevice&) = delete;

  const Api& api() const { return api_; }
  VkDevice handle() const { return device_; }
  const DeviceChoice& choice() const { return choice_; }
  // Rays (or texels) per launch: what vkCmdTraceRaysKHR's width allows, at most 1M.
  std::size_t max_launch() const { return max_launch_; }
  bool lost() const { return lost_; }
  // Waits for the queue to drain before a release (not when lost()).
  void wait_idle() const;

  // host: mapped, coherent memory (inputs, outputs, SBT); else device-local when there is.
  Buffer make_buffer(VkDeviceSize size, VkBufferUsageFlags usage, bool host) const;
  void destroy(Buffer& b) const;

  // Records into the command buffer, submits, waits at most the fence timeout; VulkanTimeout
  // (and lost() from then on) when the submission does not finish.
  template <class Record>
  void one_shot(Record record) const {
    VkCommandBuffer cmd = begin_one_shot();
    record(cmd);
    submit_and_wait();
  }

 private:
  void create();
  void release();
  std::uint32_t memory_type(std::uint32_t bits, VkMemoryPropertyFlags want, VkMemoryPropertyFlags fallback) const;
  VkCommandBuffer begin_one_shot() const;
  void submit_and_wait() const;

  Api api_;
  DeviceChoice choice_;
  std::uint64_t timeout_ns_;
  VkDevice device_ = VK_NULL_HANDLE;
  VkQueue queue_ = VK_NULL_HANDLE;
  VkCommandPool command_pool_ = VK_NULL_HANDLE;
  VkCommandBuffer command_ = VK_NULL_HANDLE;
  VkFence fence_ = VK_NULL_HANDLE;
  std::size_t max_launch_ = 1;
  mutable bool lost_ = false;
};

}  // namespace mixforge::baker::vk
