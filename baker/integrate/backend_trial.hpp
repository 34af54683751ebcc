#pragma once
// `--backend auto`'s trial: Embree, then Vulkan, bake pass 0 of the atlas's first tiles
// through the integrator's own code (its threads, each back end's own tiles per batch), and
// the faster bakes the rest. Embree's time bounds Vulkan's trial: Vulkan stops at it, having
// lost. The winner's tiles are kept (IntegratorOptions::head), so its trial is not lost work.
#include <cstddef>
#include <string>

#include "baker/integrate/integrator.hpp"
#include "baker/trace/backend_calibration.hpp"

namespace mixforge::baker {

struct BackendTrial {
  std::size_t tiles = 0, texels = 0;  // the trial's: tiles [0, tiles) of the atlas
  TrialMeasure embree, vulkan;
  CalibratedChoice choice;
  PassHead head;  // the chosen back end's pass 0 of the trial tiles
};

// The first tiles: 1/32 of the atlas, and at least a work item of Vulkan's batch per thread
// (threads x vulkan_tiles_per_batch), so that both run as they would in the bake.
std::size_t trial_tiles(const Atlas& atlas, std::uint32_t vulkan_tiles_per_batch, std::size_t threads);

// options: the bake's (its progress is not called). Throws BakeCancelled on a cancel.
BackendTrial run_backend_trial(const Scene& scene, const Atlas& atlas, const RayTracer& embree,
                               const RayTracer& vulkan, const std::string& vulkan_device, const Sampler& sampler,
                               const IntegratorOptions& options);

}  // namespace mixforge::baker
