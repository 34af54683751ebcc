#pragma once
// Which processor scores: `--device cpu|gpu|auto` of eval, evolve and serve, and what
// `auto` does when the GPU it chose fails later (a PTX load or a launch): the CPU takes
// over, and every report of the device says so and why.
#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

namespace mixforge::avalanche {

class GpuCounter;

enum class Device { cpu, gpu, automatic };

// "cpu", "gpu" or "auto"; std::invalid_argument naming the value otherwise.
Device parse_device(std::string_view text);

// Fault injection, so that the fallback is tested where no GPU is: every PTX module load
// (load) or every kernel launch (launch) of the GPU throws cuda::CudaError, as a failing
// driver's would. Set by the environment variable MIXFORGE_FAULT_GPU=load|launch, read
// only by select_device(Device). Where no GPU opens, the GPU is then a stand-in that has
// no driver and fails the same way (so auto and gpu select it).
enum class GpuFault { none, load, launch };

// "" -> none, "load", "launch"; std::invalid_argument naming MIXFORGE_FAULT_GPU otherwise.
GpuFault parse_gpu_fault(std::string_view text);
const char* gpu_fault_name(GpuFault fault);  // "none", "load", "launch"

// The record of a GPU given up under auto, shared by every evaluator that scores on it
// (so one failure moves them all to the CPU, and the warning is written once).
// Thread-safe: evaluators on many threads check it before each GPU call.
class GpuFallback {
 public:
  // Called once, on the thread of the first failure, with the reason (the CUDA error).
  // Set it before the evaluators are shared; it must not throw.
  void on_fall_back(std::function<void(const std::string& reason)> listener);
  // Records the failure; true for the first (the one that switched and was told).
  bool fall_back(const std::string& reason);
  bool happened() const { return happened_.load(std::memory_order_acquire); }
  std::string reason() const;  // "" before

 private:
  std::atomic<bool> happened_{false};
  mutable std::mutex mu_;
  std::string reason_;
  std::function<void(const std::string&)> listener_;
};

struct DeviceSelection {
  std::shared_ptr<const GpuCounter> gpu;  // null: the CPU scores everything
  std::string kind = "cpu";               // "cpu" or "gpu"
  std::string name = "cpu";               // "cpu", or the GPU's name and PTX target
  std::string note;                       // auto on a machine without a GPU: why not
  // auto with a GPU: where its failure is recorded (the evaluators then score on the
  // CPU). Null under gpu, where a failure is an error, and without a GPU.
  std::shared_ptr<GpuFallback> fallback;
};

// cpu: never opens a GPU. gpu: the first CUDA device, or std::runtime_error saying why
// there is none. automatic: the GPU when one works, else the CPU with `note` saying why.
// The first form reads MIXFORGE_FAULT_GPU (a bad value: std::invalid_argument) unless the
// device is cpu; the second is for tests.
DeviceSelection select_device(Device device);
DeviceSelection select_device(Device device, GpuFault fault);

// What scores now, for reports (/healthz, eval --json): {kind, name, note?}; after a
// fallback kind and name are the CPU's, note says so, and fallback is {from: the GPU's
// name, reason: the CUDA error}.
nlohmann::json device_json(const DeviceSelection& device);

}  // namespace mixforge::avalanche
