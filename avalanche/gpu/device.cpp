#include "avalanche/gpu/device.hpp"

#include <cstdlib>
#include <stdexcept>

#include <nlohmann/json.hpp>

#if MIXFORGE_WITH_JIT
#include "avalanche/gpu/cuda_driver.hpp"
#include "avalanche/gpu/gpu_counter.hpp"
#endif

namespace mixforge::avalanche {

Device parse_device(std::string_view text) {
  if (text == "cpu") return Device::cpu;
  if (text == "gpu") return Device::gpu;
  if (text == "auto") return Device::automatic;
  throw std::invalid_argument("device \"" + std::string(text) + "\" is not one of cpu, gpu, auto");
}

GpuFault parse_gpu_fault(std::string_view text) {
  if (text.empty()) return GpuFault::none;
  if (text == "load") return GpuFault::load;
  if (text == "launch") return GpuFault::launch;
  throw std::invalid_argument("MIXFORGE_FAULT_GPU=\"" + std::string(text) + "\" is not one of load, launch");
}

const char* gpu_fault_name(GpuFault fault) {
  switch (fault) {
    case GpuFault::none: return "none";
    case GpuFault::load: return "load";
    case GpuFault::launch: return "launch";
  }
  return "none";
}

void GpuFallback::on_fall_back(std::function<void(const std::string& reason)> listener) {
  std::lock_guard lock(mu_);
  listener_ = std::move(listener);
}

bool GpuFallback::fall_back(const std::string& reason) {
  std::function<void(const std::string&)> tell;
  {
    std::lock_guard lock(mu_);
    if (happened_.load(std::memory_order_relaxed)) return false;
    reason_ = reason;
    happened_.store(true, std::memory_order_release);
    tell = listener_;
  }
  // Outside the lock: a listener may read reason() (a log line, a report).
  if (tell) tell(reason);
  return true;
}

std::string GpuFallback::reason() const {
  std::lock_guard lock(mu_);
  return reason_;
}

DeviceSelection select_device(Device device) {
  if (device == Device::cpu) return select_device(device, GpuFault::none);
  const char* fault = std::getenv("MIXFORGE_FAULT_GPU");
  return select_device(device, parse_gpu_fault(fault ? fault : ""));
}

DeviceSelection select_device(Device device, GpuFault fault) {
  DeviceSelection cpu;
  if (device == Device::cpu) return cpu;
#if MIXFORGE_WITH_JIT
  try {
    std::shared_ptr<const GpuCounter> gpu = GpuCounter::open({}, fault);
    const GpuDeviceInfo& info = gpu->device();
    DeviceSelection d{gpu, "gpu", info.name + " (" + info.architecture + ")", "", nullptr};
    if (device == Device::automatic) d.fallback = std::make_shared<GpuFallback>();
    return d;
  } catch (const cuda::CudaError& e) {
    if (device == Device::gpu) throw std::runtime_error(std::string("--device gpu: ") + e.what());
    cpu.note = e.what();
    return cpu;
  }
#else
  (void)fault;
  if (device == Device::gpu) throw std::runtime_error("--device gpu: this build has no JIT (LLVM), so no GPU kernels");
  cpu.note = "this build has no JIT (LLVM), so no GPU kernels";
  return cpu;
#endif
}

nlohmann::json device_json(const DeviceSelection& d) {
  if (d.fallback && d.fallback->happened()) {
    const std::string reason = d.fallback->reason();
    return {{"kind", "cpu"},
            {"name", "cpu"},
            {"note", "GPU scoring failed on " + d.name + ", so the CPU scores (--device auto): " + reason},
            {"fallback", {{"from", d.name}, {"reason", reason}}}};
  }
  nlohmann::json j{{"kind", d.kind}, {"name", d.name}};
  if (!d.note.empty()) j["note"] = d.note;
  return j;
}

}  // namespace mixforge::avalanche
