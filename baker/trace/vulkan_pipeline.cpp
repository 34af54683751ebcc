#include "baker/trace/vulkan_pipeline.hpp"

// glslang: only here, for the raygen shader of a user's mixers.
#include <glslang/Public/ResourceLimits.h>
#include <glslang/Public/ShaderLang.h>
#include <glslang/SPIRV/GlslangToSpv.h>

#include <cstring>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>

#include "baker/trace/mixers_glsl.hpp"
#include "baker/trace/shaders/shader_sources.hpp"

namespace mixforge::baker::vk {
namespace {

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

}  // namespace

std::vector<std::uint32_t> raygen_spirv(const VulkanOptions& options) {
  if (options.mixers_glsl_override) return compile_raygen(*options.mixers_glsl_override);
  if (options.mixers) return compile_raygen(mixers_glsl(*options.mixers));
  return {shader_sources::raygen_default_spv.begin(), shader_sources::raygen_default_spv.end()};
}

VulkanPipeline::VulkanPipeline(const VulkanDevice& device, const std::vector<std::uint32_t>& raygen) : device_(device) {
  try {
    create(raygen);
  } catch (...) {
    release();
    throw;
  }
}

VulkanPipeline::~VulkanPipeline() { release(); }

void VulkanPipeline::release() {
  if (device_.lost()) return;  // the device leaks everything (VulkanDevice)
  device_.wait_idle();
  const Api& api = device_.api();
  const VkDevice device = device_.handle();
  device_.destroy(sbt_);
  if (descriptor_pool_) api.vkDestroyDescriptorPool(device, descriptor_pool_, nullptr);
  if (pipeline_) api.vkDestroyPipeline(device, pipeline_, nullptr);
  if (pipeline_layout_) api.vkDestroyPipelineLayout(device, pipeline_layout_, nullptr);
  if (set_layout_) api.vkDestroyDescriptorSetLayout(device, set_layout_, nullptr);
  descriptor_pool_ = VK_NULL_HANDLE;
  pipeline_ = VK_NULL_HANDLE;
  pipeline_layout_ = VK_NULL_HANDLE;
  set_layout_ = VK_NULL_HANDLE;
}

VkShaderModule VulkanPipeline::module(const std::uint32_t* code, std::size_t words) const {
  VkShaderModuleCreateInfo ci{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  ci.codeSize = words * 4;
  ci.pCode = code;
  VkShaderModule m;
  check(device_.api().vkCreateShaderModule(device_.handle(), &ci, nullptr, &m), "vkCreateShaderModule");
  return m;
}

void VulkanPipeline::create(const std::vector<std::uint32_t>& raygen) {
  const Api& api = device_.api();
  const VkDevice device = device_.handle();
  const DeviceChoice& choice = device_.choice();
  VkDescriptorSetLayoutBinding bindings[3]{};
  const VkDescriptorType types[3] = {VK_DESCRIPTOR_TYPE_ACCELERATION_STRUCTURE_KHR, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                     VK_DESCRIPTOR_TYPE_STORAGE_BUFFER};
  for (std::uint32_t i = 0; i < 3; ++i) {
    bindings[i].binding = i;
    bindings[i].descriptorType = types[i];
    bindings[i].descriptorCount = 1;
    bindings[i].stageFlags = VK_SHADER_STAGE_RAYGEN_BIT_KHR;
  }
  VkDescriptorSetLayoutCreateInfo dslci{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  dslci.bindingCount = 3;
  dslci.pBindings = bindings;
  check(api.vkCreateDescriptorSetLayout(device, &dslci, nullptr, &set_layout_), "vkCreateDescriptorSetLayout");
  VkPushConstantRange range{VK_SHADER_STAGE_RAYGEN_BIT_KHR, 0, sizeof(Push)};
  VkPipelineLayoutCreateInfo plci{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  plci.setLayoutCount = 1;
  plci.pSetLayouts = &set_layout_;
  plci.pushConstantRangeCount = 1;
  plci.pPushConstantRanges = &range;
  check(api.vkCreatePipelineLayout(device, &plci, nullptr, &pipeline_layout_), "vkCreatePipelineLayout");

  const VkShaderModule modules[3] = {module(raygen.data(), raygen.size()),
                                     module(shader_sources::miss_spv.data(), shader_sources::miss_spv.size()),
                                     module(shader_sources::closest_hit_spv.data(),
                                            shader_sources::closest_hit_spv.size())};
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
    groups[i].type =
        i < 2 ? VK_RAY_TRACING_SHADER_GROUP_TYPE_GENERAL_KHR : VK_RAY_TRACING_SHADER_GROUP_TYPE_TRIANGLES_HIT_GROUP_KHR;
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
      api.vkCreateRayTracingPipelinesKHR(device, VK_NULL_HANDLE, VK_NULL_HANDLE, 1, &ci, nullptr, &pipeline_);
  for (VkShaderModule m : modules) api.vkDestroyShaderModule(device, m, nullptr);
  check(r, "vkCreateRayTracingPipelinesKHR");

  // Shader binding table: raygen, miss, hit group, each record at a base-aligned address.
  const VkDeviceSize handle = choice.rt.shaderGroupHandleSize;
  const VkDeviceSize stride = align_up(handle, choice.rt.shaderGroupHandleAlignment);
  const VkDeviceSize base = choice.rt.shaderGroupBaseAlignment;
  const VkDeviceSize region = align_up(stride, base);
  std::vector<std::uint8_t> handles(3 * handle);
  check(api.vkGetRayTracingShaderGroupHandlesKHR(device, pipeline_, 0, 3, handles.size(), handles.data()),
        "vkGetRayTracingShaderGroupHandlesKHR");
  sbt_ = device_.make_buffer(3 * region + base, VK_BUFFER_USAGE_SHADER_BINDING_TABLE_BIT_KHR, true);
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
  check(api.vkCreateDescriptorPool(device, &dpci, nullptr, &descriptor_pool_), "vkCreateDescriptorPool");
  VkDescriptorSetAllocateInfo dsai{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  dsai.descriptorPool = descriptor_pool_;
  dsai.descriptorSetCount = 1;
  dsai.pSetLayouts = &set_layout_;
  check(api.vkAllocateDescriptorSets(device, &dsai, &set_), "vkAllocateDescriptorSets");
}

void VulkanPipeline::bind_acceleration_structure(VkAccelerationStructureKHR tlas) const {
  VkWriteDescriptorSetAccelerationStructureKHR as_write{
      VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET_ACCELERATION_STRUCTURE_KHR};
  as_write.accelerationStructureCount = 1;
  as_write.pAccelerationStructures = &tlas;
  VkWriteDescriptorSet write{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
  write.pNext = &as_write;
  write.dstSet = set_;
  write.dstBinding = 0;
  write.descriptorCount = 1;
  write.descriptorType = VK_DESCRIPTOR_TYPE_ACCELERATION_STRUCTURE_KHR;
  device_.api().vkUpdateDescriptorSets(device_.handle(), 1, &write, 0, nullptr);
}

void VulkanPipeline::bind_buffers(const Buffer& input, const Buffer& output) const {
  VkDescriptorBufferInfo infos[2] = {{input.buffer, 0, VK_WHOLE_SIZE}, {output.buffer, 0, VK_WHOLE_SIZE}};
  VkWriteDescriptorSet writes[2]{};
  for (std::uint32_t i = 0; i < 2; ++i) {
    writes[i].sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
    writes[i].dstSet = set_;
    writes[i].dstBinding = i + 1;
    writes[i].descriptorCount = 1;
    writes[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    writes[i].pBufferInfo = &infos[i];
  }
  device_.api().vkUpdateDescriptorSets(device_.handle(), 2, writes, 0, nullptr);
}

void VulkanPipeline::record_trace(VkCommandBuffer cmd, const Push& push) const {
  const Api& api = device_.api();
  api.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_RAY_TRACING_KHR, pipeline_);
  api.vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_RAY_TRACING_KHR, pipeline_layout_, 0, 1, &set_, 0, nullptr);
  api.vkCmdPushConstants(cmd, pipeline_layout_, VK_SHADER_STAGE_RAYGEN_BIT_KHR, 0, sizeof push, &push);
  const VkStridedDeviceAddressRegionKHR callable{};
  api.vkCmdTraceRaysKHR(cmd, &raygen_region_, &miss_region_, &hit_region_, &callable, push.count, 1, 1);
  VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  barrier.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
  barrier.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
  api.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_RAY_TRACING_SHADER_BIT_KHR, VK_PIPELINE_STAGE_HOST_BIT, 0, 1,
                           &barrier, 0, nullptr, 0, nullptr);
}

}  // namespace mixforge::baker::vk
