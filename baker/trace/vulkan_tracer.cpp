#include "baker/trace/vulkan_tracer.hpp"

// The only file of the baker that sees Vulkan (and glslang). Functions come from the loader
// opened at run time (dlopen), so a machine without libvulkan gets VulkanUnavailable, not a
// binary that cannot start.
#define VK_NO_PROTOTYPES
#include <dlfcn.h>
#include <glslang/Public/ResourceLimits.h>
#include <glslang/Public/ShaderLang.h>
#include <glslang/SPIRV/GlslangToSpv.h>
#include <vulkan/vulkan.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <vector>

#include "baker/trace/mixers_glsl.hpp"
#include "baker/trace/shaders/shader_sources.hpp"

namespace mixforge::baker {
namespace {

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

#define MIXFORGE_VK_DEVICE_FUNCTIONS(X)          \
  X(vkDestroyDevice)                             \
  X(vkGetDeviceQueue)                            \
  X(vkDeviceWaitIdle)                            \
  X(vkCreateBuffer)                              \
  X(vkDestroyBuffer)                             \
  X(vkGetBufferMemoryRequirements)               \
  X(vkAllocateMemory)                            \
  X(vkFreeMemory)                                \
  X(vkBindBufferMemory)                          \
  X(vkMapMemory)                                 \
  X(vkGetBufferDeviceAddress)                    \
  X(vkCreateShaderModule)                        \
  X(vkDestroyShaderModule)                       \
  X(vkCreateDescriptorSetLayout)                 \
  X(vkDestroyDescriptorSetLayout)                \
  X(vkCreatePipelineLayout)                      \
  X(vkDestroyPipelineLayout)                     \
  X(vkDestroyPipeline)                           \
  X(vkCreateDescriptorPool)                      \
  X(vkDestroyDescriptorPool)                     \
  X(vkAllocateDescriptorSets)                    \
  X(vkUpdateDescriptorSets)                      \
  X(vkCreateCommandPool)                         \
  X(vkDestroyCommandPool)                        \
  X(vkAllocateCommandBuffers)                    \
  X(vkBeginCommandBuffer)                        \
  X(vkEndCommandBuffer)                          \
  X(vkResetCommandBuffer)                        \
  X(vkCmdBindPipeline)                           \
  X(vkCmdBindDescriptorSets)                     \
  X(vkCmdPushConstants)                          \
  X(vkCmdPipelineBarrier)                        \
  X(vkCreateFence)                               \
  X(vkDestroyFence)                              \
  X(vkResetFences)                               \
  X(vkWaitForFences)                             \
  X(vkQueueSubmit)                               \
  X(vkCreateAccelerationStructureKHR)            \
  X(vkDestroyAccelerationStructureKHR)           \
  X(vkGetAccelerationStructureBuildSizesKHR)     \
  X(vkCmdBuildAccelerationStructuresKHR)         \
  X(vkGetAccelerationStructureDeviceAddressKHR)  \
  X(vkCreateRayTracingPipelinesKHR)              \
  X(vkGetRayTracingShaderGroupHandlesKHR)        \
  X(vkCmdTraceRaysKHR)

const char* const required_extensions[] = {
    VK_KHR_RAY_TRACING_PIPELINE_EXTENSION_NAME,
    VK_KHR_ACCELERATION_STRUCTURE_EXTENSION_NAME,
    VK_KHR_DEFERRED_HOST_OPERATIONS_EXTENSION_NAME,
};

std::string vk_error(const char* what, VkResult r) {
  return std::string("Vulkan: ") + what + " failed (VkResult " + std::to_string(int(r)) + ")";
}
void check(VkResult r, const char* what) {
  if (r != VK_SUCCESS) throw std::runtime_error(vk_error(what, r));
}

// The loader, an instance and the instance- and device-level functions.
struct Api {
  void* library = nullptr;
  PFN_vkGetInstanceProcAddr get_instance_proc = nullptr;
  VkInstance instance = VK_NULL_HANDLE;
#define MIXFORGE_DECLARE(name) PFN_##name name = nullptr;
  MIXFORGE_VK_INSTANCE_FUNCTIONS(MIXFORGE_DECLARE)
  MIXFORGE_VK_DEVICE_FUNCTIONS(MIXFORGE_DECLARE)
#undef MIXFORGE_DECLARE

  Api() {
    library = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!library)
      throw VulkanUnavailable("no Vulkan loader (libvulkan.so.1: " + std::string(dlerror()) +
                              "; Debian: libvulkan1 and mesa-vulkan-drivers)");
    get_instance_proc = reinterpret_cast<PFN_vkGetInstanceProcAddr>(dlsym(library, "vkGetInstanceProcAddr"));
    if (!get_instance_proc) throw VulkanUnavailable("the Vulkan loader has no vkGetInstanceProcAddr");
    auto create = reinterpret_cast<PFN_vkCreateInstance>(get_instance_proc(nullptr, "vkCreateInstance"));
    auto version = reinterpret_cast<PFN_vkEnumerateInstanceVersion>(
        get_instance_proc(nullptr, "vkEnumerateInstanceVersion"));
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
  void load_device(VkDevice device) {
#define MIXFORGE_LOAD(name)                                                        \
  name = reinterpret_cast<PFN_##name>(vkGetDeviceProcAddr(device, #name));         \
  if (!name) throw VulkanUnavailable("the Vulkan device has no " #name);
    MIXFORGE_VK_DEVICE_FUNCTIONS(MIXFORGE_LOAD)
#undef MIXFORGE_LOAD
  }
  // Leaves everything in place (a device stuck in a shader cannot be destroyed safely).
  void abandon() {
    instance = VK_NULL_HANDLE;
    library = nullptr;
  }
  ~Api() {
    if (instance && vkDestroyInstance) vkDestroyInstance(instance, nullptr);
    if (library) dlclose(library);
  }
  Api(const Api&) = delete;
  Api& operator=(const Api&) = delete;
};

struct Choice {
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  std::uint32_t family = 0;
  VkPhysicalDeviceProperties props{};
  VkPhysicalDeviceRayTracingPipelinePropertiesKHR rt{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_RAY_TRACING_PIPELINE_PROPERTIES_KHR};
  VkPhysicalDeviceAccelerationStructurePropertiesKHR as{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ACCELERATION_STRUCTURE_PROPERTIES_KHR};
};

// The first device (GPUs before CPU implementations) with the extensions, the features and a
// compute queue; else VulkanUnavailable listing what each device lacks.
Choice choose_device(const Api& api) {
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
    Choice c;
    c.physical = d;
    api.vkGetPhysicalDeviceProperties(d, &c.props);
    std::vector<std::string> lacks;
    if (c.props.apiVersion < VK_API_VERSION_1_2) lacks.push_back("Vulkan 1.2");
    std::uint32_t en = 0;
    api.vkEnumerateDeviceExtensionProperties(d, nullptr, &en, nullptr);
    std::vector<VkExtensionProperties> exts(en);
    api.vkEnumerateDeviceExtensionProperties(d, nullptr, &en, exts.data());
    for (const char* want : required_extensions)
      if (std::none_of(exts.begin(), exts.end(), [&](const VkExtensionProperties& e) {
            return std::strcmp(e.extensionName, want) == 0;
          }))
        lacks.push_back(want);
    if (lacks.empty()) {
      VkPhysicalDeviceBufferDeviceAddressFeatures bda{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_BUFFER_DEVICE_ADDRESS_FEATURES};
      VkPhysicalDeviceAccelerationStructureFeaturesKHR asf{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ACCELERATION_STRUCTURE_FEATURES_KHR};
      VkPhysicalDeviceRayTracingPipelineFeaturesKHR rtf{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_RAY_TRACING_PIPELINE_FEATURES_KHR};
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
  throw VulkanUnavailable("no Vulkan device with ray-tracing pipelines (" + why +
                          "; Mesa's lavapipe has them from Mesa 25: .ci/install-deps takes it from bookworm-backports)");
}

// GLSL -> SPIR-V at run time (glslang), for a user's mixers. The includes are the shader
// sources embedded at build time plus mixers.glsl.
class Includer final : public glslang::TShader::Includer {
 public:
  explicit Includer(std::map<std::string, std::string> files) : files_(std::move(files)) {}
  IncludeResult* includeLocal(const char* name, const char*, std::size_t) override { return find(name); }
  IncludeResult* includeSystem(const char* name, const char*, std::size_t) override { return find(name); }
  void releaseInclude(IncludeResult* r) override { delete r; }

 private:
  IncludeResult* find(const char* name) {
    const auto it = files_.find(name);
    if (it == files_.end()) return nullptr;
    return new IncludeResult(it->first, it->second.data(), it->second.size(), nullptr);
  }
  std::map<std::string, std::string> files_;
};

std::vector<std::uint32_t> compile_raygen(const std::string& mixers) {
  // glslang's process-wide tables: initialised per compile, one compile at a time.
  static std::mutex glslang_mutex;
  std::lock_guard lock(glslang_mutex);
  glslang::InitializeProcess();
  struct Finalize {
    ~Finalize() { glslang::FinalizeProcess(); }
  } finalize;
  Includer includer({{"mixers.glsl", mixers},
                     {"ray_common.glsl", std::string(shader_sources::ray_common)},
                     {"hemisphere.glsl", std::string(shader_sources::hemisphere)},
                     {"mixforge_cmj.glsl", std::string(shader_sources::mixforge_cmj)}});
  glslang::TShader shader(EShLangRayGen);
  const char* text = shader_sources::raygen.data();
  const int length = static_cast<int>(shader_sources::raygen.size());
  const char* name = "raygen.rgen";
  shader.setStringsWithLengthsAndNames(&text, &length, &name, 1);
  shader.setEnvInput(glslang::EShSourceGlsl, EShLangRayGen, glslang::EShClientVulkan, 100);
  shader.setEnvClient(glslang::EShClientVulkan, glslang::EShTargetVulkan_1_2);
  shader.setEnvTarget(glslang::EShTargetSpv, glslang::EShTargetSpv_1_5);
  const auto messages = static_cast<EShMessages>(EShMsgSpvRules | EShMsgVulkanRules);
  if (!shader.parse(GetDefaultResources(), 460, false, messages, includer))
    throw std::invalid_argument("the mixers' GLSL does not compile in the raygen shader: " +
                                std::string(shader.getInfoLog()));
  glslang::TProgram program;
  program.addShader(&shader);
  if (!program.link(messages))
    throw std::invalid_argument("the raygen shader does not link: " + std::string(program.getInfoLog()));
  std::vector<std::uint32_t> spirv;
  glslang::GlslangToSpv(*program.getIntermediate(EShLangRayGen), spirv);
  return spirv;
}

constexpr VkDeviceSize align_up(VkDeviceSize v, VkDeviceSize a) { return a ? (v + a - 1) / a * a : v; }

struct Buffer {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  void* mapped = nullptr;
  VkDeviceAddress address = 0;
  VkDeviceSize size = 0;
};

struct Push {
  std::uint32_t mode, count, spp, sample, pass, seed_lo, seed_hi;
};
enum Mode : std::uint32_t { mode_intersect = 0, mode_occluded = 1, mode_directions = 2 };

// Rays per call the integrator aims for (RayTracer::batch_rays). On lavapipe (2 cores, load
// ~7) the Cornell bake ran 1.9x faster from 4 tiles (~900 rays) a call up, 2.0x at 16-64 and
// 1.9x at this size (298 tiles there), against one tile a call (bench/bake_vulkan_batch.sh,
// bench/results/bake/vulkan_batch.txt); a GPU fills only with tens of thousands of rays.
constexpr std::size_t vulkan_batch_rays = std::size_t{1} << 16;

class VulkanTracerImpl final : public VulkanTracer {
 public:
  VulkanTracerImpl(const Scene& scene, const VulkanOptions& options)
      : timeout_ns_(static_cast<std::uint64_t>(
            std::chrono::duration_cast<std::chrono::nanoseconds>(options.fence_timeout).count())) {
    choice_ = choose_device(api_);
    std::vector<std::uint32_t> raygen;
    if (options.mixers_glsl_override) {
      raygen = compile_raygen(*options.mixers_glsl_override);
    } else if (options.mixers) {
      raygen = compile_raygen(mixers_glsl(*options.mixers));
    } else {
      raygen.assign(shader_sources::raygen_default_spv.begin(), shader_sources::raygen_default_spv.end());
    }
    try {
      create_device();
      create_pipeline(raygen);
      build_acceleration_structures(scene);
    } catch (...) {
      release();
      throw;
    }
  }

  ~VulkanTracerImpl() override { release(); }

  void release() {
    if (lost_) {
      api_.abandon();  // a shader still runs: leak rather than block in vkDestroy*
      return;
    }
    if (!device_) return;
    if (api_.vkDeviceWaitIdle) api_.vkDeviceWaitIdle(device_);
    for (Buffer* b : {&input_, &output_, &sbt_, &blas_buffer_, &tlas_buffer_}) destroy(*b);
    if (tlas_) api_.vkDestroyAccelerationStructureKHR(device_, tlas_, nullptr);
    if (blas_) api_.vkDestroyAccelerationStructureKHR(device_, blas_, nullptr);
    if (fence_) api_.vkDestroyFence(device_, fence_, nullptr);
    if (command_pool_) api_.vkDestroyCommandPool(device_, command_pool_, nullptr);
    if (descriptor_pool_) api_.vkDestroyDescriptorPool(device_, descriptor_pool_, nullptr);
    if (pipeline_) api_.vkDestroyPipeline(device_, pipeline_, nullptr);
    if (pipeline_layout_) api_.vkDestroyPipelineLayout(device_, pipeline_layout_, nullptr);
    if (set_layout_) api_.vkDestroyDescriptorSetLayout(device_, set_layout_, nullptr);
    api_.vkDestroyDevice(device_, nullptr);
    device_ = VK_NULL_HANDLE;
  }

  std::string name() const override { return "vulkan"; }
  std::string device_name() const override { return choice_.props.deviceName; }
  // Each call pays a submission and a fence wait, and the queue is one (calls take turns):
  // the integrator batches several tiles per call to reach this many rays.
  std::size_t batch_rays() const override { return vulkan_batch_rays; }

  void intersect(std::span<const Ray> rays, std::span<Hit> hits, bool) const override {
    if (empty_scene_) {
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
    if (empty_scene_) {
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
    for (std::size_t base = 0; base < texels.size(); base += max_launch_) {
      const std::size_t n = std::min<std::size_t>(max_launch_, texels.size() - base);
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
    for (std::size_t base = 0; base < rays.size(); base += max_launch_) {
      const std::size_t n = std::min<std::size_t>(max_launch_, rays.size() - base);
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

  void create_device() {
    const float priority = 1.0f;
    VkDeviceQueueCreateInfo qci{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    qci.queueFamilyIndex = choice_.family;
    qci.queueCount = 1;
    qci.pQueuePriorities = &priority;
    VkPhysicalDeviceBufferDeviceAddressFeatures bda{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_BUFFER_DEVICE_ADDRESS_FEATURES};
    bda.bufferDeviceAddress = VK_TRUE;
    VkPhysicalDeviceAccelerationStructureFeaturesKHR asf{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ACCELERATION_STRUCTURE_FEATURES_KHR};
    asf.accelerationStructure = VK_TRUE;
    asf.pNext = &bda;
    VkPhysicalDeviceRayTracingPipelineFeaturesKHR rtf{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_RAY_TRACING_PIPELINE_FEATURES_KHR};
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
    const std::uint64_t width_limit = std::uint64_t{choice_.props.limits.maxComputeWorkGroupCount[0]} *
                                      choice_.props.limits.maxComputeWorkGroupSize[0];
    max_launch_ = static_cast<std::size_t>(
        std::min<std::uint64_t>({width_limit, choice_.rt.maxRayDispatchInvocationCount, 1u << 20}));
  }

  std::uint32_t memory_type(std::uint32_t bits, VkMemoryPropertyFlags want, VkMemoryPropertyFlags fallback) const {
    VkPhysicalDeviceMemoryProperties mp;
    api_.vkGetPhysicalDeviceMemoryProperties(choice_.physical, &mp);
    for (VkMemoryPropertyFlags w : {want, fallback})
      for (std::uint32_t i = 0; i < mp.memoryTypeCount; ++i)
        if ((bits & (1u << i)) && (mp.memoryTypes[i].propertyFlags & w) == w) return i;
    throw std::runtime_error("Vulkan: no suitable memory type");
  }

  // host: mapped, coherent memory (inputs, outputs, SBT); else device-local when there is.
  Buffer make_buffer(VkDeviceSize size, VkBufferUsageFlags usage, bool host) const {
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
  void destroy(Buffer& b) const {
    if (b.buffer) api_.vkDestroyBuffer(device_, b.buffer, nullptr);
    if (b.memory) api_.vkFreeMemory(device_, b.memory, nullptr);  // unmaps
    b = Buffer{};
  }

  VkShaderModule module(const std::uint32_t* code, std::size_t words) const {
    VkShaderModuleCreateInfo ci{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    ci.codeSize = words * 4;
    ci.pCode = code;
    VkShaderModule m;
    check(api_.vkCreateShaderModule(device_, &ci, nullptr, &m), "vkCreateShaderModule");
    return m;
  }

  void create_pipeline(const std::vector<std::uint32_t>& raygen) {
    VkDescriptorSetLayoutBinding bindings[3]{};
    const VkDescriptorType types[3] = {VK_DESCRIPTOR_TYPE_ACCELERATION_STRUCTURE_KHR,
                                       VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER};
    for (std::uint32_t i = 0; i < 3; ++i) {
      bindings[i].binding = i;
      bindings[i].descriptorType = types[i];
      bindings[i].descriptorCount = 1;
      bindings[i].stageFlags = VK_SHADER_STAGE_RAYGEN_BIT_KHR;
    }
    VkDescriptorSetLayoutCreateInfo dslci{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    dslci.bindingCount = 3;
    dslci.pBindings = bindings;
    check(api_.vkCreateDescriptorSetLayout(device_, &dslci, nullptr, &set_layout_), "vkCreateDescriptorSetLayout");
    VkPushConstantRange range{VK_SHADER_STAGE_RAYGEN_BIT_KHR, 0, sizeof(Push)};
    VkPipelineLayoutCreateInfo plci{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    plci.setLayoutCount = 1;
    plci.pSetLayouts = &set_layout_;
    plci.pushConstantRangeCount = 1;
    plci.pPushConstantRanges = &range;
    check(api_.vkCreatePipelineLayout(device_, &plci, nullptr, &pipeline_layout_), "vkCreatePipelineLayout");

    const VkShaderModule modules[3] = {
        module(raygen.data(), raygen.size()),
        module(shader_sources::miss_spv.data(), shader_sources::miss_spv.size()),
        module(shader_sources::closest_hit_spv.data(), shader_sources::closest_hit_spv.size())};
    const VkShaderStageFlagBits stage_bits[3] = {VK_SHADER_STAGE_RAYGEN_BIT_KHR, VK_SHADER_STAGE_MISS_BIT_KHR,
                                                 VK_SHADER_STAGE_CLOSEST_HIT_BIT_KHR};
    VkPipelineShaderStageCreateInfo stages[3]{};
    VkRayTracingShaderGroupCreateInfoKHR groups[3]{};
    for (std::uint32_t i = 0; i < 3; ++i) {
      stages[i].sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
      stages[i].stage = stage_bits[i];
      stages[i].module = modules[i];
      stages[i].pName = "main";
      groups[i].sType = VK_STRUCTURE_TYPE_RAY_TRACING_SHADER_GROUP_CREATE_INFO_KHR;
      groups[i].type = i < 2 ? VK_RAY_TRACING_SHADER_GROUP_TYPE_GENERAL_KHR
                             : VK_RAY_TRACING_SHADER_GROUP_TYPE_TRIANGLES_HIT_GROUP_KHR;
      groups[i].generalShader = i < 2 ? i : VK_SHADER_UNUSED_KHR;
      groups[i].closestHitShader = i == 2 ? i : VK_SHADER_UNUSED_KHR;
      groups[i].anyHitShader = VK_SHADER_UNUSED_KHR;
      groups[i].intersectionShader = VK_SHADER_UNUSED_KHR;
    }
    VkRayTracingPipelineCreateInfoKHR ci{VK_STRUCTURE_TYPE_RAY_TRACING_PIPELINE_CREATE_INFO_KHR};
    ci.stageCount = 3;
    ci.pStages = stages;
    ci.groupCount = 3;
    ci.pGroups = groups;
    ci.maxPipelineRayRecursionDepth = 1;
    ci.layout = pipeline_layout_;
    const VkResult r =
        api_.vkCreateRayTracingPipelinesKHR(device_, VK_NULL_HANDLE, VK_NULL_HANDLE, 1, &ci, nullptr, &pipeline_);
    for (VkShaderModule m : modules) api_.vkDestroyShaderModule(device_, m, nullptr);
    check(r, "vkCreateRayTracingPipelinesKHR");

    // Shader binding table: raygen, miss, hit group, each record at a base-aligned address.
    const VkDeviceSize handle = choice_.rt.shaderGroupHandleSize;
    const VkDeviceSize stride = align_up(handle, choice_.rt.shaderGroupHandleAlignment);
    const VkDeviceSize base = choice_.rt.shaderGroupBaseAlignment;
    const VkDeviceSize region = align_up(stride, base);
    std::vector<std::uint8_t> handles(3 * handle);
    check(api_.vkGetRayTracingShaderGroupHandlesKHR(device_, pipeline_, 0, 3, handles.size(), handles.data()),
          "vkGetRayTracingShaderGroupHandlesKHR");
    sbt_ = make_buffer(3 * region + base, VK_BUFFER_USAGE_SHADER_BINDING_TABLE_BIT_KHR, true);
    const VkDeviceSize start = align_up(sbt_.address, base) - sbt_.address;
    for (int i = 0; i < 3; ++i)
      std::memcpy(static_cast<std::uint8_t*>(sbt_.mapped) + start + i * region, &handles[i * handle], handle);
    raygen_region_ = {sbt_.address + start, stride, stride};
    miss_region_ = {sbt_.address + start + region, stride, stride};
    hit_region_ = {sbt_.address + start + 2 * region, stride, stride};

    VkDescriptorPoolSize sizes[2] = {{VK_DESCRIPTOR_TYPE_ACCELERATION_STRUCTURE_KHR, 1},
                                     {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 2}};
    VkDescriptorPoolCreateInfo dpci{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    dpci.maxSets = 1;
    dpci.poolSizeCount = 2;
    dpci.pPoolSizes = sizes;
    check(api_.vkCreateDescriptorPool(device_, &dpci, nullptr, &descriptor_pool_), "vkCreateDescriptorPool");
    VkDescriptorSetAllocateInfo dsai{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    dsai.descriptorPool = descriptor_pool_;
    dsai.descriptorSetCount = 1;
    dsai.pSetLayouts = &set_layout_;
    check(api_.vkAllocateDescriptorSets(device_, &dsai, &set_), "vkAllocateDescriptorSets");
  }

  // Records into command_, submits, waits at most the fence timeout.
  template <class Record>
  void one_shot(Record record) const {
    if (lost_) throw VulkanTimeout("Vulkan: the device timed out earlier; this tracer is unusable");
    check(api_.vkResetCommandBuffer(command_, 0), "vkResetCommandBuffer");
    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    check(api_.vkBeginCommandBuffer(command_, &begin), "vkBeginCommandBuffer");
    record(command_);
    check(api_.vkEndCommandBuffer(command_), "vkEndCommandBuffer");
    VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    si.commandBufferCount = 1;
    si.pCommandBuffers = &command_;
    check(api_.vkQueueSubmit(queue_, 1, &si, fence_), "vkQueueSubmit");
    const VkResult r = api_.vkWaitForFences(device_, 1, &fence_, VK_TRUE, timeout_ns_);
    if (r == VK_TIMEOUT) {
      lost_ = true;
      throw VulkanTimeout("Vulkan: a submission did not finish within " +
                          std::to_string(timeout_ns_ / 1'000'000) + " ms (a shader stuck in a loop?)");
    }
    check(r, "vkWaitForFences");
    check(api_.vkResetFences(device_, 1, &fence_), "vkResetFences");
  }

  void build_acceleration_structures(const Scene& scene) {
    const std::uint32_t n = static_cast<std::uint32_t>(scene.triangles.size());
    if (n == 0) {
      empty_scene_ = true;
      return;
    }
    const VkBufferUsageFlags input_usage = VK_BUFFER_USAGE_ACCELERATION_STRUCTURE_BUILD_INPUT_READ_ONLY_BIT_KHR;
    Buffer vertices = make_buffer(VkDeviceSize{n} * 9 * sizeof(float), input_usage, true);
    auto* v = static_cast<float*>(vertices.mapped);
    for (std::uint32_t i = 0; i < n; ++i)
      for (int k = 0; k < 3; ++k) {
        v[9 * i + 3 * k + 0] = scene.triangles[i].v[k].x;
        v[9 * i + 3 * k + 1] = scene.triangles[i].v[k].y;
        v[9 * i + 3 * k + 2] = scene.triangles[i].v[k].z;
      }
    VkAccelerationStructureGeometryKHR geometry{VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_GEOMETRY_KHR};
    geometry.geometryType = VK_GEOMETRY_TYPE_TRIANGLES_KHR;
    geometry.flags = VK_GEOMETRY_OPAQUE_BIT_KHR;
    auto& tri = geometry.geometry.triangles;
    tri.sType = VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_GEOMETRY_TRIANGLES_DATA_KHR;
    tri.vertexFormat = VK_FORMAT_R32G32B32_SFLOAT;
    tri.vertexData.deviceAddress = vertices.address;
    tri.vertexStride = 3 * sizeof(float);
    tri.maxVertex = 3 * n - 1;
    tri.indexType = VK_INDEX_TYPE_NONE_KHR;  // triangle i = vertices 3i..3i+2: gl_PrimitiveID = i

    // The TLAS's one instance: identity transform, both faces (no culling, as Embree).
    Buffer instances = make_buffer(sizeof(VkAccelerationStructureInstanceKHR), input_usage, true);
    VkAccelerationStructureGeometryKHR instance_geometry{VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_GEOMETRY_KHR};
    instance_geometry.geometryType = VK_GEOMETRY_TYPE_INSTANCES_KHR;
    instance_geometry.flags = VK_GEOMETRY_OPAQUE_BIT_KHR;
    instance_geometry.geometry.instances.sType = VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_GEOMETRY_INSTANCES_DATA_KHR;
    instance_geometry.geometry.instances.data.deviceAddress = instances.address;

    std::vector<Buffer> scratch;
    auto prepare = [&](VkAccelerationStructureGeometryKHR& g, VkAccelerationStructureTypeKHR type,
                       std::uint32_t primitives, Buffer& storage, VkAccelerationStructureKHR& as) {
      VkAccelerationStructureBuildGeometryInfoKHR info{VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_BUILD_GEOMETRY_INFO_KHR};
      info.type = type;
      info.flags = VK_BUILD_ACCELERATION_STRUCTURE_PREFER_FAST_TRACE_BIT_KHR;
      info.mode = VK_BUILD_ACCELERATION_STRUCTURE_MODE_BUILD_KHR;
      info.geometryCount = 1;
      info.pGeometries = &g;
      VkAccelerationStructureBuildSizesInfoKHR sizes{VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_BUILD_SIZES_INFO_KHR};
      api_.vkGetAccelerationStructureBuildSizesKHR(device_, VK_ACCELERATION_STRUCTURE_BUILD_TYPE_DEVICE_KHR, &info,
                                                   &primitives, &sizes);
      storage = make_buffer(sizes.accelerationStructureSize,
                            VK_BUFFER_USAGE_ACCELERATION_STRUCTURE_STORAGE_BIT_KHR, false);
      VkAccelerationStructureCreateInfoKHR ci{VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_CREATE_INFO_KHR};
      ci.buffer = storage.buffer;
      ci.size = sizes.accelerationStructureSize;
      ci.type = type;
      check(api_.vkCreateAccelerationStructureKHR(device_, &ci, nullptr, &as), "vkCreateAccelerationStructureKHR");
      const VkDeviceSize align = choice_.as.minAccelerationStructureScratchOffsetAlignment;
      scratch.push_back(make_buffer(sizes.buildScratchSize + align, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, false));
      info.dstAccelerationStructure = as;
      info.scratchData.deviceAddress = align_up(scratch.back().address, align);
      return info;
    };
    auto cleanup = [&] {
      for (Buffer& b : scratch) destroy(b);
      destroy(vertices);
      destroy(instances);
    };
    try {
      const auto blas_info = prepare(geometry, VK_ACCELERATION_STRUCTURE_TYPE_BOTTOM_LEVEL_KHR, n, blas_buffer_, blas_);
      VkAccelerationStructureDeviceAddressInfoKHR ai{VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_DEVICE_ADDRESS_INFO_KHR};
      ai.accelerationStructure = blas_;
      VkAccelerationStructureInstanceKHR instance{};
      instance.transform.matrix[0][0] = instance.transform.matrix[1][1] = instance.transform.matrix[2][2] = 1;
      instance.mask = 0xff;
      instance.flags = VK_GEOMETRY_INSTANCE_TRIANGLE_FACING_CULL_DISABLE_BIT_KHR;
      instance.accelerationStructureReference = api_.vkGetAccelerationStructureDeviceAddressKHR(device_, &ai);
      std::memcpy(instances.mapped, &instance, sizeof instance);
      const auto tlas_info =
          prepare(instance_geometry, VK_ACCELERATION_STRUCTURE_TYPE_TOP_LEVEL_KHR, 1, tlas_buffer_, tlas_);
      one_shot([&](VkCommandBuffer cmd) {
        const VkAccelerationStructureBuildRangeInfoKHR blas_range{n, 0, 0, 0}, tlas_range{1, 0, 0, 0};
        const VkAccelerationStructureBuildRangeInfoKHR* ranges[1] = {&blas_range};
        api_.vkCmdBuildAccelerationStructuresKHR(cmd, 1, &blas_info, ranges);
        VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
        barrier.srcAccessMask = VK_ACCESS_ACCELERATION_STRUCTURE_WRITE_BIT_KHR;
        barrier.dstAccessMask = VK_ACCESS_ACCELERATION_STRUCTURE_READ_BIT_KHR;
        api_.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_ACCELERATION_STRUCTURE_BUILD_BIT_KHR,
                                  VK_PIPELINE_STAGE_ACCELERATION_STRUCTURE_BUILD_BIT_KHR, 0, 1, &barrier, 0,
                                  nullptr, 0, nullptr);
        ranges[0] = &tlas_range;
        api_.vkCmdBuildAccelerationStructuresKHR(cmd, 1, &tlas_info, ranges);
        api_.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_ACCELERATION_STRUCTURE_BUILD_BIT_KHR,
                                  VK_PIPELINE_STAGE_RAY_TRACING_SHADER_BIT_KHR, 0, 1, &barrier, 0, nullptr, 0,
                                  nullptr);
      });
    } catch (...) {
      if (!lost_) cleanup();
      throw;
    }
    cleanup();
    VkWriteDescriptorSetAccelerationStructureKHR as_write{
        VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET_ACCELERATION_STRUCTURE_KHR};
    as_write.accelerationStructureCount = 1;
    as_write.pAccelerationStructures = &tlas_;
    VkWriteDescriptorSet write{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    write.pNext = &as_write;
    write.dstSet = set_;
    write.dstBinding = 0;
    write.descriptorCount = 1;
    write.descriptorType = VK_DESCRIPTOR_TYPE_ACCELERATION_STRUCTURE_KHR;
    api_.vkUpdateDescriptorSets(device_, 1, &write, 0, nullptr);
  }

  // Grows the input / output buffers (doubling) and points the descriptors at them.
  void reserve(VkDeviceSize in_bytes, VkDeviceSize out_bytes) const {
    bool changed = false;
    for (auto [b, bytes] : {std::pair{&input_, in_bytes}, std::pair{&output_, out_bytes}}) {
      if (b->size >= bytes) continue;
      const VkDeviceSize size = std::max<VkDeviceSize>(bytes, 2 * b->size);
      destroy(*b);
      *b = make_buffer(std::max<VkDeviceSize>(size, 256), VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, true);
      changed = true;
    }
    if (!changed) return;
    VkDescriptorBufferInfo infos[2] = {{input_.buffer, 0, VK_WHOLE_SIZE}, {output_.buffer, 0, VK_WHOLE_SIZE}};
    VkWriteDescriptorSet writes[2]{};
    for (std::uint32_t i = 0; i < 2; ++i) {
      writes[i].sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
      writes[i].dstSet = set_;
      writes[i].dstBinding = i + 1;
      writes[i].descriptorCount = 1;
      writes[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
      writes[i].pBufferInfo = &infos[i];
    }
    api_.vkUpdateDescriptorSets(device_, 2, writes, 0, nullptr);
  }

  void submit(const Push& push) const {
    one_shot([&](VkCommandBuffer cmd) {
      api_.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_RAY_TRACING_KHR, pipeline_);
      api_.vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_RAY_TRACING_KHR, pipeline_layout_, 0, 1, &set_, 0,
                                   nullptr);
      api_.vkCmdPushConstants(cmd, pipeline_layout_, VK_SHADER_STAGE_RAYGEN_BIT_KHR, 0, sizeof push, &push);
      const VkStridedDeviceAddressRegionKHR callable{};
      api_.vkCmdTraceRaysKHR(cmd, &raygen_region_, &miss_region_, &hit_region_, &callable, push.count, 1, 1);
      VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
      barrier.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
      barrier.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
      api_.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_RAY_TRACING_SHADER_BIT_KHR, VK_PIPELINE_STAGE_HOST_BIT, 0, 1,
                                &barrier, 0, nullptr, 0, nullptr);
    });
  }

  Api api_;
  Choice choice_;
  std::uint64_t timeout_ns_;
  VkDevice device_ = VK_NULL_HANDLE;
  VkQueue queue_ = VK_NULL_HANDLE;
  VkCommandPool command_pool_ = VK_NULL_HANDLE;
  VkCommandBuffer command_ = VK_NULL_HANDLE;
  VkFence fence_ = VK_NULL_HANDLE;
  VkDescriptorSetLayout set_layout_ = VK_NULL_HANDLE;
  VkPipelineLayout pipeline_layout_ = VK_NULL_HANDLE;
  VkPipeline pipeline_ = VK_NULL_HANDLE;
  VkDescriptorPool descriptor_pool_ = VK_NULL_HANDLE;
  VkDescriptorSet set_ = VK_NULL_HANDLE;
  Buffer sbt_, blas_buffer_, tlas_buffer_;
  VkAccelerationStructureKHR blas_ = VK_NULL_HANDLE, tlas_ = VK_NULL_HANDLE;
  VkStridedDeviceAddressRegionKHR raygen_region_{}, miss_region_{}, hit_region_{};
  std::size_t max_launch_ = 1;
  bool empty_scene_ = false;
  // Everything below changes per call, under the mutex.
  mutable std::mutex mutex_;
  mutable Buffer input_, output_;
  mutable bool lost_ = false;
};

}  // namespace

std::unique_ptr<VulkanTracer> make_vulkan_tracer(const Scene& scene, const VulkanOptions& options) {
  return std::make_unique<VulkanTracerImpl>(scene, options);
}

VulkanProbe probe_vulkan() {
  VulkanProbe p;
  try {
    Api api;
    const Choice c = choose_device(api);
    p.device = c.props.deviceName;
    p.cpu = c.props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
  } catch (const std::exception& e) {
    p.unavailable = e.what();
  }
  return p;
}

}  // namespace mixforge::baker
