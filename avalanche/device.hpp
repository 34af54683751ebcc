#pragma once
// Which processor scores: `--device cpu|gpu|auto` of eval, evolve and serve.
#include <memory>
#include <string>
#include <string_view>

namespace mixforge {

class GpuCounter;

enum class Device { cpu, gpu, automatic };

// "cpu", "gpu" or "auto"; std::invalid_argument naming the value otherwise.
Device parse_device(std::string_view text);

struct DeviceSelection {
  std::shared_ptr<const GpuCounter> gpu;  // null: the CPU scores everything
  std::string kind = "cpu";               // "cpu" or "gpu"
  std::string name = "cpu";               // "cpu", or the GPU's name and PTX target
  std::string note;                       // auto on a machine without a GPU: why not
};

// cpu: never opens a GPU. gpu: the first CUDA device, or std::runtime_error saying why
// there is none. automatic: the GPU when one works, else the CPU with `note` saying why.
DeviceSelection select_device(Device device);

}  // namespace mixforge
