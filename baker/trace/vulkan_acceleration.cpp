#include "baker/trace/vulkan_acceleration.hpp"

#include <cstring>
#include <vector>

namespace mixforge::baker::vk {

VulkanAcceleration::VulkanAcceleration(const VulkanDevice& device, const Scene& scene) : device_(device) {
  try {
    build(scene);
  } catch (...) {
    release();
    throw;
  }
}

VulkanAcceleration::~VulkanAcceleration() { release(); }

void VulkanAcceleration::release() {
  if (device_.lost()) return;  // the device leaks everything (VulkanDevice)
  device_.wait_idle();
  const Api& api = device_.api();
  if (tlas_) api.vkDestroyAccelerationStructureKHR(device_.handle(), tlas_, nullptr);
  if (blas_) api.vkDestroyAccelerationStructureKHR(device_.handle(), blas_, nullptr);
  tlas_ = blas_ = VK_NULL_HANDLE;
  device_.destroy(blas_buffer_);
  device_.destroy(tlas_buffer_);
}

void VulkanAcceleration::build(const Scene& scene) {
  const Api& api = device_.api();
  const VkDevice device = device_.handle();
  const std::uint32_t n = static_cast<std::uint32_t>(scene.triangles.size());
  if (n == 0) return;
  const VkBufferUsageFlags input_usage = VK_BUFFER_USAGE_ACCELERATION_STRUCTURE_BUILD_INPUT_READ_ONLY_BIT_KHR;
  Buffer vertices = device_.make_buffer(VkDeviceSize{n} * 9 * sizeof(float), input_usage, true);
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
  Buffer instances = device_.make_buffer(sizeof(VkAccelerationStructureInstanceKHR), input_usage, true);
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
    api.vkGetAccelerationStructureBuildSizesKHR(device, VK_ACCELERATION_STRUCTURE_BUILD_TYPE_DEVICE_KHR, &info,
                                                &primitives, &sizes);
    storage = device_.make_buffer(sizes.accelerationStructureSize,
                                  VK_BUFFER_USAGE_ACCELERATION_STRUCTURE_STORAGE_BIT_KHR, false);
    VkAccelerationStructureCreateInfoKHR ci{VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_CREATE_INFO_KHR};
    ci.buffer = storage.buffer;
    ci.size = sizes.accelerationStructureSize;
    ci.type = type;
    check(api.vkCreateAccelerationStructureKHR(device, &ci, nullptr, &as), "vkCreateAccelerationStructureKHR");
    const VkDeviceSize align = device_.choice().as.minAccelerationStructureScratchOffsetAlignment;
    scratch.push_back(device_.make_buffer(sizes.buildScratchSize + align, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, false));
    info.dstAccelerationStructure = as;
    info.scratchData.deviceAddress = align_up(scratch.back().address, align);
    return info;
  };
  auto cleanup = [&] {
    for (Buffer& b : scratch) device_.destroy(b);
    device_.destroy(vertices);
    device_.destroy(instances);
  };
  try {
    const auto blas_info = prepare(geometry, VK_ACCELERATION_STRUCTURE_TYPE_BOTTOM_LEVEL_KHR, n, blas_buffer_, blas_);
    VkAccelerationStructureDeviceAddressInfoKHR ai{VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_DEVICE_ADDRESS_INFO_KHR};
    ai.accelerationStructure = blas_;
    VkAccelerationStructureInstanceKHR instance{};
    instance.transform.matrix[0][0] = instance.transform.matrix[1][1] = instance.transform.matrix[2][2] = 1;
    instance.mask = 0xff;
    instance.flags = VK_GEOMETRY_INSTANCE_TRIANGLE_FACING_CULL_DISABLE_BIT_KHR;
    instance.accelerationStructureReference = api.vkGetAccelerationStructureDeviceAddressKHR(device, &ai);
    std::memcpy(instances.mapped, &instance, sizeof instance);
    const auto tlas_info =
        prepare(instance_geometry, VK_ACCELERATION_STRUCTURE_TYPE_TOP_LEVEL_KHR, 1, tlas_buffer_, tlas_);
    device_.one_shot([&](VkCommandBuffer cmd) {
      const VkAccelerationStructureBuildRangeInfoKHR blas_range{n, 0, 0, 0}, tlas_range{1, 0, 0, 0};
      const VkAccelerationStructureBuildRangeInfoKHR* ranges[1] = {&blas_range};
      api.vkCmdBuildAccelerationStructuresKHR(cmd, 1, &blas_info, ranges);
      VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
      barrier.srcAccessMask = VK_ACCESS_ACCELERATION_STRUCTURE_WRITE_BIT_KHR;
      barrier.dstAccessMask = VK_ACCESS_ACCELERATION_STRUCTURE_READ_BIT_KHR;
      api.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_ACCELERATION_STRUCTURE_BUILD_BIT_KHR,
                               VK_PIPELINE_STAGE_ACCELERATION_STRUCTURE_BUILD_BIT_KHR, 0, 1, &barrier, 0, nullptr, 0,
                               nullptr);
      ranges[0] = &tlas_range;
      api.vkCmdBuildAccelerationStructuresKHR(cmd, 1, &tlas_info, ranges);
      api.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_ACCELERATION_STRUCTURE_BUILD_BIT_KHR,
                               VK_PIPELINE_STAGE_RAY_TRACING_SHADER_BIT_KHR, 0, 1, &barrier, 0, nullptr, 0, nullptr);
    });
  } catch (...) {
    if (!device_.lost()) cleanup();
    throw;
  }
  cleanup();
}

}  // namespace mixforge::baker::vk
