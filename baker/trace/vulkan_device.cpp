#include "baker/trace/vulkan_device.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <vector>

namespace mixforge::baker::vk {
namespace {

const char* const required_extensions[] = {
    VK_KHR_RAY_TRACING_PIPELINE_EXTENSION_NAME,
    VK_KHR_ACCELERATION_STRUCTURE_EXTENSION_NAME,
    VK_KHR_DEFERRED_HOST_OPERATIONS_EXTENSION_NAME,
};

}  // namespace

std::string vk_error(const char* what, VkResult r) {
  return std::string("Vulkan: ") + what + " failed (VkResult " + std::to_string(int(r)) + ")";
}
void check(VkResult r, const char* what) {
  if (r != VK_SUCCESS) throw std::runtime_error(vk_error(what, r));
}

Api::Api() {
  library = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library)
    throw VulkanUnavailable("no Vulkan loader (libvulkan.so.1: " + std::string(dlerror()) +
                            "; Debian: libvulkan1 and mesa-vulkan-drivers)");
  get_instance_proc = reinterpret_cast<PFN_vkGetInstanceProcAddr>(dlsym(library, "vkGetInstanceProcAddr"));
  if (!get_instance_proc) throw VulkanUnavailable("the Vulkan loader has no vkGetInstanceProcAddr");
  auto create = reinterpret_cast<PFN_vkCreateInstance>(get_instance_proc(nullptr, "vkCreateInstance"));
  auto version =
      reinterpret_cast<PFN_vkEnumerateInstanceVersion>(get_instance_proc(nullptr, "vkEnumerateInstanceVersion"));
  std::uint32_t api = VK_API_VERSION_1_0;
  if (version) version(&api);
  if (api < VK_API_VERSION_1_2)
    throw VulkanUnavailable("the Vulkan loader offers version " + std::to_string(VK_API_VERSION_MAJOR(api)) + "." +
                            std::to_string(VK_API_VERSION_MINOR(api)) + "; ray tracing needs 1.2");
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = "mixforge-baker";
  app.apiVersion = VK_API_VERSION_1_2;
  VkInstanceCreateInfo ici{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  ici.pApplicationInfo = &app;
  const VkResult r = create(&ici, nullptr, &instance);
  if (r != VK_SUCCESS) throw VulkanUnavailable(vk_error("vkCreateInstance", r));
#define MIXFORGE_LOAD(name) name = reinterpret_cast<PFN_##name>(get_instance_proc(instance, #name));
  MIXFORGE_VK_INSTANCE_FUNCTIONS(MIXFORGE_LOAD)
#undef MIXFORGE_LOAD
}

void Api::load_device(VkDevice device) {
#define MIXFORGE_LOAD(name)                                                \
  name = reinterpret_cast<PFN_##name>(vkGetDeviceProcAddr(device, #name)); \
  if (!name) throw VulkanUnavailable("the Vulkan device has no " #name);
  MIXFORGE_VK_DEVICE_FUNCTIONS(MIXFORGE_LOAD)
#undef MIXFORGE_LOAD
}

Api::~Api() {
  if (instance && vkDestroyInstance) vkDestroyInstance(instance, nullptr);
  if (library) dlclose(library);
}

DeviceChoice choose_device(const Api& api) {
  std::uint32_t n = 0;
  check(api.vkEnumeratePhysicalDevices(api.instance, &n, nullptr), "vkEnumeratePhysicalDevices");
  if (n == 0) throw VulkanUnavailable("no Vulkan device (install mesa-vulkan-drivers >= 25 for lavapipe)");
  std::vector<VkPhysicalDevice> devices(n);
  check(api.vkEnumeratePhysicalDevices(api.instance, &n, devices.data()), "vkEnumeratePhysicalDevices");
  std::stable_sort(devices.begin(), devices.end(), [&](VkPhysicalDevice a, VkPhysicalDevice b) {
    VkPhysicalDeviceProperties pa, pb;
    api.vkGetPhysicalDeviceProperties(a, &pa);
    api.vkGetPhysicalDeviceProperties(b, &pb);
    return (pa.deviceType != VK_PHYSICAL_DEVICE_TYPE_CPU) > (pb.deviceType != VK_PHYSICAL_DEVICE_TYPE_CPU);
  });
  std::string why;
  for (VkPhysicalDevice d : devices) {
    DeviceChoice c;
    c.physical = d;
    api.vkGetPhysicalDeviceProperties(d, &c.props);
    std::vector<std::string> lacks;
    if (c.props.apiVersion < VK_API_VERSION_1_2) lacks.push_back("Vulkan 1.2");
    std::uint32_t en = 0;
    api.vkEnumerateDeviceExtensionProperties(d, nullptr, &en, nullptr);
    std::vector<VkExtensionProperties> exts(en);
    api.vkEnumerateDeviceExtensionProperties(d, nullptr, &en, exts.data());
    for (const char* want : required_extensions)
      if (std::none_of(exts.begin(), exts.end(),
                       [&](const VkExtensionProperties& e) { return std::strcmp(e.extensionName, want) == 0; }))
        lacks.push_back(want);
    if (lacks.empty()) {
      VkPhysicalDeviceBufferDeviceAddressFeatures bda{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_BUFFER_DEVICE_ADDRESS_FEATURES};
      VkPhysicalDeviceAccelerationStructureFeaturesKHR asf{
          VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ACCELERATION_STRUCTURE_FEATURES_KHR};
      VkPhysicalDeviceRayTracingPipelineFeaturesKHR rtf{
          VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_RAY_TRACING_PIPELINE_FEATURES_KHR};
      asf.pNext = &bda;
      rtf.pNext = &asf;
      VkPhysicalDeviceFeatures2 f2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
      f2.pNext = &rtf;
      api.vkGetPhysicalDeviceFeatures2(d, &f2);
      if (!bda.bufferDeviceAddress) lacks.push_back("bufferDeviceAddress");
      if (!asf.accelerationStructure) lacks.push_back("accelerationStructure");
      if (!rtf.rayTracingPipeline) lacks.push_back("rayTracingPipeline");
      if (!f2.features.shaderInt64) lacks.push_back("shaderInt64");
    }
    std::uint32_t qn = 0;
    api.vkGetPhysicalDeviceQueueFamilyProperties(d, &qn, nullptr);
    std::vector<VkQueueFamilyProperties> qs(qn);
    api.vkGetPhysicalDeviceQueueFamilyProperties(d, &qn, qs.data());
    bool queue = false;
    for (std::uint32_t i = 0; i < qn && !queue; ++i)
      if (qs[i].queueFlags & VK_QUEUE_COMPUTE_BIT) {
        c.family = i;
        queue = true;
      }
    if (!queue) lacks.push_back("a compute queue");
    if (lacks.empty()) {
      c.as.pNext = nullptr;
      c.rt.pNext = &c.as;
      VkPhysicalDeviceProperties2 p2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
      p2.pNext = &c.rt;
      api.vkGetPhysicalDeviceProperties2(d, &p2);
      c.rt.pNext = nullptr;
      return c;
    }
    std::string list;
    for (const auto& l : lacks) list += (list.empty() ? "" : ", ") + l;
    why += (why.empty() ? "" : "; ") + std::string(c.props.deviceName) + " lacks " + list;
  }
  throw VulkanUnavailable(
      "no Vulkan device with ray-tracing pipelines (" + why +
      "; Mesa's lavapipe has them from Mesa 25: .ci/install-deps takes it from bookworm-backports)");
}

VulkanDevice::VulkanDevice(std::chrono::milliseconds fence_timeout)
    : choice_(choose_device(api_)),
      timeout_ns_(
          static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(fence_timeout).count())) {
  try {
    create();
  } catch (...) {
    release();
    throw;
  }
}

VulkanDevice::~VulkanDevice() { release(); }

void VulkanDevice::release() {
  if (lost_) {
    api_.abandon();  // a shader still runs: leak rather than block in vkDestroy*
    return;
  }
  if (!device_) return;
  if (api_.vkDeviceWaitIdle) api_.vkDeviceWaitIdle(device_);
  if (fence_) api_.vkDestroyFence(device_, fence_, nullptr);
  if (command_pool_) api_.vkDestroyCommandPool(device_, command_pool_, nullptr);
  api_.vkDestroyDevice(device_, nullptr);
  device_ = VK_NULL_HANDLE;
}

void VulkanDevice::wait_idle() const {
  if (!lost_ && device_ && api_.vkDeviceWaitIdle) api_.vkDeviceWaitIdle(device_);
}

void VulkanDevice::create() {
  const float priority = 1.0f;
  VkDeviceQueueCreateInfo qci{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  qci.queueFamilyIndex = choice_.family;
  qci.queueCount = 1;
  qci.pQueuePriorities = &priority;
  VkPhysicalDeviceBufferDeviceAddressFeatures bda{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_BUFFER_DEVICE_ADDRESS_FEATURES};
  bda.bufferDeviceAddress = VK_TRUE;
  VkPhysicalDeviceAccelerationStructureFeaturesKHR asf{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ACCELERATION_STRUCTURE_FEATURES_KHR};
  asf.accelerationStructure = VK_TRUE;
  asf.pNext = &bda;
  VkPhysicalDeviceRayTracingPipelineFeaturesKHR rtf{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_RAY_TRACING_PIPELINE_FEATURES_KHR};
  rtf.rayTracingPipeline = VK_TRUE;
  rtf.pNext = &asf;
  VkPhysicalDeviceFeatures2 f2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  f2.features.shaderInt64 = VK_TRUE;
  f2.pNext = &rtf;
  VkDeviceCreateInfo dci{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  dci.pNext = &f2;
  dci.queueCreateInfoCount = 1;
  dci.pQueueCreateInfos = &qci;
  dci.enabledExtensionCount = static_cast<std::uint32_t>(std::size(required_extensions));
  dci.ppEnabledExtensionNames = required_extensions;
  check(api_.vkCreateDevice(choice_.physical, &dci, nullptr, &device_), "vkCreateDevice");
  api_.load_device(device_);
  api_.vkGetDeviceQueue(device_, choice_.family, 0, &queue_);
  VkCommandPoolCreateInfo cpi{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  cpi.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  cpi.queueFamilyIndex = choice_.family;
  check(api_.vkCreateCommandPool(device_, &cpi, nullptr, &command_pool_), "vkCreateCommandPool");
  VkCommandBufferAllocateInfo cbai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  cbai.commandPool = command_pool_;
  cbai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  cbai.commandBufferCount = 1;
  check(api_.vkAllocateCommandBuffers(device_, &cbai, &command_), "vkAllocateCommandBuffers");
  VkFenceCreateInfo fci{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  check(api_.vkCreateFence(device_, &fci, nullptr, &fence_), "vkCreateFence");
  // One launch: at most what vkCmdTraceRaysKHR's width allows, and 1M rays per submission.
  const std::uint64_t width_limit =
      std::uint64_t{choice_.props.limits.maxComputeWorkGroupCount[0]} * choice_.props.limits.maxComputeWorkGroupSize[0];
  max_launch_ = static_cast<std::size_t>(
      std::min<std::uint64_t>({width_limit, choice_.rt.maxRayDispatchInvocationCount, 1u << 20}));
}

std::uint32_t VulkanDevice::memory_type(std::uint32_t bits, VkMemoryPropertyFlags want,
                                        VkMemoryPropertyFlags fallback) const {
  VkPhysicalDeviceMemoryProperties mp;
  api_.vkGetPhysicalDeviceMemoryProperties(choice_.physical, &mp);
  for (VkMemoryPropertyFlags w : {want, fallback})
    for (std::uint32_t i = 0; i < mp.memoryTypeCount; ++i)
      if ((bits & (1u << i)) && (mp.memoryTypes[i].propertyFlags & w) == w) return i;
  throw std::runtime_error("Vulkan: no suitable memory type");
}

Buffer VulkanDevice::make_buffer(VkDeviceSize size, VkBufferUsageFlags usage, bool host) const {
  Buffer b;
  b.size = size;
  VkBufferCreateInfo bci{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  bci.size = size;
  bci.usage = usage | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT;
  bci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  check(api_.vkCreateBuffer(device_, &bci, nullptr, &b.buffer), "vkCreateBuffer");
  VkMemoryRequirements req;
  api_.vkGetBufferMemoryRequirements(device_, b.buffer, &req);
  VkMemoryAllocateFlagsInfo flags{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO};
  flags.flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT;
  VkMemoryAllocateInfo mai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  mai.pNext = &flags;
  mai.allocationSize = req.size;
  const VkMemoryPropertyFlags visible = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  mai.memoryTypeIndex = host ? memory_type(req.memoryTypeBits, visible, visible)
                             : memory_type(req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0);
  if (const VkResult r = api_.vkAllocateMemory(device_, &mai, nullptr, &b.memory); r != VK_SUCCESS) {
    api_.vkDestroyBuffer(device_, b.buffer, nullptr);
    throw std::runtime_error(vk_error("vkAllocateMemory", r) + " for " + std::to_string(size) + " bytes");
  }
  check(api_.vkBindBufferMemory(device_, b.buffer, b.memory, 0), "vkBindBufferMemory");
  if (host) check(api_.vkMapMemory(device_, b.memory, 0, VK_WHOLE_SIZE, 0, &b.mapped), "vkMapMemory");
  VkBufferDeviceAddressInfo ai{VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO};
  ai.buffer = b.buffer;
  b.address = api_.vkGetBufferDeviceAddress(device_, &ai);
  return b;
}
void VulkanDevice::destroy(Buffer& b) const {
  if (b.buffer) api_.vkDestroyBuffer(device_, b.buffer, nullptr);
  if (b.memory) api_.vkFreeMemory(device_, b.memory, nullptr);  // unmaps
  b = Buffer{};
}

VkCommandBuffer VulkanDevice::begin_one_shot() const {
  if (lost_) throw VulkanTimeout("Vulkan: the device timed out earlier; this tracer is unusable");
  check(api_.vkResetCommandBuffer(command_, 0), "vkResetCommandBuffer");
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  check(api_.vkBeginCommandBuffer(command_, &begin), "vkBeginCommandBuffer");
  return command_;
}

void VulkanDevice::submit_and_wait() const {
  check(api_.vkEndCommandBuffer(command_), "vkEndCommandBuffer");
  VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  si.commandBufferCount = 1;
  si.pCommandBuffers = &command_;
  check(api_.vkQueueSubmit(queue_, 1, &si, fence_), "vkQueueSubmit");
  const VkResult r = api_.vkWaitForFences(device_, 1, &fence_, VK_TRUE, timeout_ns_);
  if (r == VK_TIMEOUT) {
    lost_ = true;
    throw VulkanTimeout("Vulkan: a submission did not finish within " + std::to_string(timeout_ns_ / 1'000'000) +
                        " ms (a shader stuck in a loop?)");
  }
  check(r, "vkWaitForFences");
  check(api_.vkResetFences(device_, 1, &fence_), "vkResetFences");
}

}  // namespace mixforge::baker::vk

namespace mixforge::baker {

VulkanProbe probe_vulkan() {
  VulkanProbe p;
  try {
    vk::Api api;
    const vk::DeviceChoice c = vk::choose_device(api);
    p.device = c.props.deviceName;
    p.cpu = c.props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
  } catch (const std::exception& e) {
    p.unavailable = e.what();
  }
  return p;
}

}  // namespace mixforge::baker
