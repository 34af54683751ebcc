#include "cli/device_option.hpp"

#include <CLI/CLI.hpp>

#include <iostream>

#include "cli/commands.hpp"

namespace mixforge::cli {

void add_device_option(CLI::App* command, std::string* value) {
  *value = "auto";
  command->add_option("--device", *value, device_help)
      ->check(CLI::IsMember({"cpu", "gpu", "auto"}))
      ->capture_default_str();
}

avalanche::DeviceSelection open_device(const std::string& value) {
  try {
    avalanche::DeviceSelection d = avalanche::select_device(avalanche::parse_device(value));
    if (d.gpu) std::cerr << "mixforge: scoring on the GPU: " << d.name << "\n";
    if (d.fallback)
      d.fallback->on_fall_back([name = d.name](const std::string& reason) {
        // One write: scoring threads may print progress meanwhile.
        std::cerr << ("mixforge: warning: GPU scoring failed on " + name + "; the CPU scores from now on: " + reason +
                      "\n");
      });
    return d;
  } catch (const std::exception& e) {
    throw UsageError(e.what());
  }
}

}  // namespace mixforge::cli
