#pragma once
// `--device cpu|gpu|auto` of eval, evolve and serve (avalanche/gpu/device.hpp).
#include <string>

#include "avalanche/gpu/device.hpp"

namespace CLI { class App; }

namespace mixforge::cli {

inline constexpr const char* device_help =
    "Where exact scores and large sampled ones run: cpu, gpu (a CUDA GPU, or an error saying why not) "
    "or auto (the GPU when one works; should it fail while scoring, the CPU takes over)";

// Adds the option (default auto) storing into *value.
void add_device_option(CLI::App* command, std::string* value);
// Parses and opens it; bad values and `gpu` without a usable GPU are UsageErrors. Says on
// stderr which GPU scores when one does, and (auto) when it failed and the CPU took over.
avalanche::DeviceSelection open_device(const std::string& value);

}  // namespace mixforge::cli
