#include "avalanche/device.hpp"

#include <stdexcept>

#if MIXFORGE_WITH_JIT
#include "avalanche/cuda_driver.hpp"
#include "avalanche/gpu_counter.hpp"
#endif

namespace mixforge {

Device parse_device(std::string_view text) {
  if (text == "cpu") return Device::cpu;
  if (text == "gpu") return Device::gpu;
  if (text == "auto") return Device::automatic;
  throw std::invalid_argument("device \"" + std::string(text) + "\" is not one of cpu, gpu, auto");
}

DeviceSelection select_device(Device device) {
  DeviceSelection cpu{nullptr, "cpu", "cpu", ""};
  if (device == Device::cpu) return cpu;
#if MIXFORGE_WITH_JIT
  try {
    std::shared_ptr<const GpuCounter> gpu = GpuCounter::open();
    const GpuDeviceInfo& info = gpu->device();
    return {gpu, "gpu", info.name + " (" + info.architecture + ")", ""};
  } catch (const cuda::CudaError& e) {
    if (device == Device::gpu) throw std::runtime_error(std::string("--device gpu: ") + e.what());
    cpu.note = e.what();
    return cpu;
  }
#else
  if (device == Device::gpu) throw std::runtime_error("--device gpu: this build has no JIT (LLVM), so no GPU kernels");
  cpu.note = "this build has no JIT (LLVM), so no GPU kernels";
  return cpu;
#endif
}

}  // namespace mixforge
