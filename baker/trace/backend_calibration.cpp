#include "baker/trace/backend_calibration.hpp"

#include <cstdio>

namespace mixforge::baker {

CalibratedChoice choose_by_trial(const TrialMeasure& embree, const TrialMeasure& vulkan,
                                 const std::string& vulkan_device, std::size_t tiles, std::size_t texels) {
  // Both baked the same texels with the same rays: the shorter time wins; a tie keeps Embree
  // (no device to share, no submission to wait for). A back end stopped before the end lost.
  const bool vk = vulkan.complete && (!embree.complete || vulkan.seconds < embree.seconds);
  char em[160], vl[320];
  std::snprintf(em, sizeof em, "Embree %.4g texels/s (%.2f Mrays/s, %.3f s)", embree.texels_per_s(),
                embree.rays_per_s() / 1e6, embree.seconds);
  if (vulkan.complete)
    std::snprintf(vl, sizeof vl, "Vulkan on %s %.4g texels/s (%.2f Mrays/s, %.3f s)", vulkan_device.c_str(),
                  vulkan.texels_per_s(), vulkan.rays_per_s() / 1e6, vulkan.seconds);
  else
    std::snprintf(vl, sizeof vl,
                  "Vulkan on %s stopped at Embree's time (%.3f s) with %zu texels done (at least %.4g texels/s, "
                  "%.2f Mrays/s)",
                  vulkan_device.c_str(), vulkan.seconds, vulkan.texels, vulkan.texels_per_s(), vulkan.rays_per_s() / 1e6);
  char line[640];
  std::snprintf(line, sizeof line, "auto: pass 0 of the first %zu tiles (%zu texels) on both: %s, %s; %s is faster",
                tiles, texels, em, vl, vk ? "Vulkan" : "Embree");
  return {vk ? "vulkan" : "embree", line};
}

}  // namespace mixforge::baker
