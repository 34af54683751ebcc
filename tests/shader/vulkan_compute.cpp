#include "vulkan_compute.hpp"

#include <vulkan/vulkan.h>

#include <cstring>
#include <stdexcept>

namespace mixforge::test {

namespace {
void check(VkResult r, const char* what) {
  if (r != VK_SUCCESS) throw std::runtime_error(std::string("Vulkan: ") + what + " failed (VkResult " + std::to_string(r) + ")");
}
}  // namespace

struct VulkanCompute::Impl {
  VkInstance instance = VK_NULL_HANDLE;
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  VkDevice device = VK_NULL_HANDLE;
  VkQueue queue = VK_NULL_HANDLE;
  std::uint32_t family = 0;
  VkPhysicalDeviceProperties props{};
  bool int64 = false;

  ~Impl() {
    if (device) vkDestroyDevice(device, nullptr);
    if (instance) vkDestroyInstance(instance, nullptr);
  }

  std::uint32_t memory_type(std::uint32_t bits, VkMemoryPropertyFlags want) const {
    VkPhysicalDeviceMemoryProperties mp;
    vkGetPhysicalDeviceMemoryProperties(physical, &mp);
    for (std::uint32_t i = 0; i < mp.memoryTypeCount; ++i)
      if ((bits & (1u << i)) && (mp.memoryTypes[i].propertyFlags & want) == want) return i;
    throw std::runtime_error("Vulkan: no host-visible coherent memory type");
  }
};

// RAII for the per-run objects: destroyed in reverse order of creation.
namespace {
struct Buffer {
  VkDevice device;
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  ~Buffer() {
    if (buffer) vkDestroyBuffer(device, buffer, nullptr);
    if (memory) vkFreeMemory(device, memory, nullptr);
  }
};
template <class T, auto Destroy>
struct Handle {
  VkDevice device;
  T h = VK_NULL_HANDLE;
  ~Handle() {
    if (h) Destroy(device, h, nullptr);
  }
};
}  // namespace

VulkanCompute::VulkanCompute() : impl_(std::make_unique<Impl>()) {
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = "mixforge-shader-tests";
  app.apiVersion = VK_API_VERSION_1_1;
  VkInstanceCreateInfo ici{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  ici.pApplicationInfo = &app;
  check(vkCreateInstance(&ici, nullptr, &impl_->instance), "vkCreateInstance");
  std::uint32_t n = 0;
  check(vkEnumeratePhysicalDevices(impl_->instance, &n, nullptr), "vkEnumeratePhysicalDevices");
  if (n == 0) throw std::runtime_error("Vulkan: no physical device (install mesa-vulkan-drivers for lavapipe)");
  std::vector<VkPhysicalDevice> devices(n);
  check(vkEnumeratePhysicalDevices(impl_->instance, &n, devices.data()), "vkEnumeratePhysicalDevices");
  for (VkPhysicalDevice d : devices) {
    std::uint32_t qn = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(d, &qn, nullptr);
    std::vector<VkQueueFamilyProperties> qs(qn);
    vkGetPhysicalDeviceQueueFamilyProperties(d, &qn, qs.data());
    for (std::uint32_t i = 0; i < qn; ++i)
      if (qs[i].queueFlags & VK_QUEUE_COMPUTE_BIT) {
        impl_->physical = d;
        impl_->family = i;
        break;
      }
    if (impl_->physical) break;
  }
  if (!impl_->physical) throw std::runtime_error("Vulkan: no device with a compute queue");
  vkGetPhysicalDeviceProperties(impl_->physical, &impl_->props);
  VkPhysicalDeviceFeatures features{};
  vkGetPhysicalDeviceFeatures(impl_->physical, &features);
  impl_->int64 = features.shaderInt64 == VK_TRUE;
  VkPhysicalDeviceFeatures enable{};
  enable.shaderInt64 = features.shaderInt64;
  const float priority = 1.0f;
  VkDeviceQueueCreateInfo qci{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  qci.queueFamilyIndex = impl_->family;
  qci.queueCount = 1;
  qci.pQueuePriorities = &priority;
  VkDeviceCreateInfo dci{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  dci.queueCreateInfoCount = 1;
  dci.pQueueCreateInfos = &qci;
  dci.pEnabledFeatures = &enable;
  check(vkCreateDevice(impl_->physical, &dci, nullptr, &impl_->device), "vkCreateDevice");
  vkGetDeviceQueue(impl_->device, impl_->family, 0, &impl_->queue);
}

VulkanCompute::~VulkanCompute() = default;

std::string VulkanCompute::device_name() const { return impl_->props.deviceName; }
bool VulkanCompute::has_int64() const { return impl_->int64; }

std::vector<std::uint8_t> VulkanCompute::run(const std::vector<std::uint32_t>& spirv, const void* input,
                                             std::size_t input_bytes, std::size_t output_bytes,
                                             std::uint32_t groups) {
  VkDevice dev = impl_->device;
  auto make_buffer = [&](Buffer& b, std::size_t bytes) {
    VkBufferCreateInfo bci{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    bci.size = bytes;
    bci.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
    bci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    check(vkCreateBuffer(dev, &bci, nullptr, &b.buffer), "vkCreateBuffer");
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(dev, b.buffer, &req);
    VkMemoryAllocateInfo mai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    mai.allocationSize = req.size;
    mai.memoryTypeIndex = impl_->memory_type(
        req.memoryTypeBits, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
    check(vkAllocateMemory(dev, &mai, nullptr, &b.memory), "vkAllocateMemory");
    check(vkBindBufferMemory(dev, b.buffer, b.memory, 0), "vkBindBufferMemory");
  };
  Buffer in{dev}, out{dev};
  make_buffer(in, input_bytes);
  make_buffer(out, output_bytes);
  void* p = nullptr;
  check(vkMapMemory(dev, in.memory, 0, input_bytes, 0, &p), "vkMapMemory");
  std::memcpy(p, input, input_bytes);
  vkUnmapMemory(dev, in.memory);

  Handle<VkShaderModule, vkDestroyShaderModule> module{dev};
  VkShaderModuleCreateInfo smci{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  smci.codeSize = spirv.size() * 4;
  smci.pCode = spirv.data();
  check(vkCreateShaderModule(dev, &smci, nullptr, &module.h), "vkCreateShaderModule");

  VkDescriptorSetLayoutBinding bindings[2]{};
  for (std::uint32_t i = 0; i < 2; ++i) {
    bindings[i].binding = i;
    bindings[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    bindings[i].descriptorCount = 1;
    bindings[i].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
  }
  Handle<VkDescriptorSetLayout, vkDestroyDescriptorSetLayout> dsl{dev};
  VkDescriptorSetLayoutCreateInfo dslci{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  dslci.bindingCount = 2;
  dslci.pBindings = bindings;
  check(vkCreateDescriptorSetLayout(dev, &dslci, nullptr, &dsl.h), "vkCreateDescriptorSetLayout");
  Handle<VkPipelineLayout, vkDestroyPipelineLayout> layout{dev};
  VkPipelineLayoutCreateInfo plci{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  plci.setLayoutCount = 1;
  plci.pSetLayouts = &dsl.h;
  check(vkCreatePipelineLayout(dev, &plci, nullptr, &layout.h), "vkCreatePipelineLayout");
  Handle<VkPipeline, vkDestroyPipeline> pipeline{dev};
  VkComputePipelineCreateInfo cpci{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  cpci.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  cpci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  cpci.stage.module = module.h;
  cpci.stage.pName = "main";
  cpci.layout = layout.h;
  check(vkCreateComputePipelines(dev, VK_NULL_HANDLE, 1, &cpci, nullptr, &pipeline.h), "vkCreateComputePipelines");

  Handle<VkDescriptorPool, vkDestroyDescriptorPool> pool{dev};
  VkDescriptorPoolSize ps{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 2};
  VkDescriptorPoolCreateInfo dpci{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  dpci.maxSets = 1;
  dpci.poolSizeCount = 1;
  dpci.pPoolSizes = &ps;
  check(vkCreateDescriptorPool(dev, &dpci, nullptr, &pool.h), "vkCreateDescriptorPool");
  VkDescriptorSet set;
  VkDescriptorSetAllocateInfo dsai{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  dsai.descriptorPool = pool.h;
  dsai.descriptorSetCount = 1;
  dsai.pSetLayouts = &dsl.h;
  check(vkAllocateDescriptorSets(dev, &dsai, &set), "vkAllocateDescriptorSets");
  VkDescriptorBufferInfo infos[2] = {{in.buffer, 0, VK_WHOLE_SIZE}, {out.buffer, 0, VK_WHOLE_SIZE}};
  VkWriteDescriptorSet writes[2]{};
  for (int i = 0; i < 2; ++i) {
    writes[i].sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
    writes[i].dstSet = set;
    writes[i].dstBinding = static_cast<std::uint32_t>(i);
    writes[i].descriptorCount = 1;
    writes[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    writes[i].pBufferInfo = &infos[i];
  }
  vkUpdateDescriptorSets(dev, 2, writes, 0, nullptr);

  Handle<VkCommandPool, vkDestroyCommandPool> cpool{dev};
  VkCommandPoolCreateInfo cpi{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  cpi.queueFamilyIndex = impl_->family;
  check(vkCreateCommandPool(dev, &cpi, nullptr, &cpool.h), "vkCreateCommandPool");
  VkCommandBuffer cmd;
  VkCommandBufferAllocateInfo cbai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  cbai.commandPool = cpool.h;
  cbai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  cbai.commandBufferCount = 1;
  check(vkAllocateCommandBuffers(dev, &cbai, &cmd), "vkAllocateCommandBuffers");
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  check(vkBeginCommandBuffer(cmd, &begin), "vkBeginCommandBuffer");
  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.h);
  vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, layout.h, 0, 1, &set, 0, nullptr);
  vkCmdDispatch(cmd, groups, 1, 1);
  VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  barrier.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
  barrier.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &barrier, 0,
                       nullptr, 0, nullptr);
  check(vkEndCommandBuffer(cmd), "vkEndCommandBuffer");
  Handle<VkFence, vkDestroyFence> fence{dev};
  VkFenceCreateInfo fci{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  check(vkCreateFence(dev, &fci, nullptr, &fence.h), "vkCreateFence");
  VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  si.commandBufferCount = 1;
  si.pCommandBuffers = &cmd;
  check(vkQueueSubmit(impl_->queue, 1, &si, fence.h), "vkQueueSubmit");
  check(vkWaitForFences(dev, 1, &fence.h, VK_TRUE, 60'000'000'000ull), "vkWaitForFences");

  std::vector<std::uint8_t> result(output_bytes);
  check(vkMapMemory(dev, out.memory, 0, output_bytes, 0, &p), "vkMapMemory");
  std::memcpy(result.data(), p, output_bytes);
  vkUnmapMemory(dev, out.memory);
  return result;
}

}  // namespace mixforge::test
