#pragma once
// A minimal Vulkan compute runner for tests: one SPIR-V compute shader, binding 0 = input
// storage buffer, binding 1 = output storage buffer, 1-D dispatch. Uses the first device
// that offers a compute queue (Mesa's lavapipe on machines without a GPU).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace mixforge::test {

class VulkanCompute {
 public:
  // Throws std::runtime_error when there is no Vulkan instance or device.
  VulkanCompute();
  ~VulkanCompute();
  VulkanCompute(const VulkanCompute&) = delete;
  VulkanCompute& operator=(const VulkanCompute&) = delete;

  std::string device_name() const;
  bool has_int64() const;

  // Runs the shader with `groups` workgroups and returns the output buffer's bytes.
  std::vector<std::uint8_t> run(const std::vector<std::uint32_t>& spirv, const void* input,
                                std::size_t input_bytes, std::size_t output_bytes,
                                std::uint32_t groups);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace mixforge::test
