#pragma once
// `--backend auto`'s choice from its trial (baker/integrate/backend_trial.hpp): each back end
// bakes pass 0 of the bake's first tiles, in the bake's own threads and batches, and the one
// that baked them faster runs the bake. A GPU's ray-tracing pipelines are not always the
// faster: on an H100 (no RT cores) the bake's Vulkan path ran 30x slower than Embree on its
// 16 cores (bench/results/bake/backends_h100.txt), a gap that one large launch of rays did
// not show.
#include <cstddef>
#include <cstdint>
#include <string>

namespace mixforge::baker {

// One back end's trial.
struct TrialMeasure {
  std::size_t texels = 0;  // texels baked (complete: all the trial's)
  std::uint64_t rays = 0;  // rays traced by those texels
  double seconds = 0;      // wall time of the trial
  bool complete = false;   // false: stopped once it had taken as long as the other's whole trial
  std::uint32_t tiles_per_batch = 1;
  double texels_per_s() const { return seconds > 0 ? double(texels) / seconds : 0.0; }
  double rays_per_s() const { return seconds > 0 ? double(rays) / seconds : 0.0; }
};

// "vulkan" when it finished the trial in less time than Embree, else "embree"; and the
// sentence for the bake report.
struct CalibratedChoice {
  std::string backend;
  std::string why;
};
CalibratedChoice choose_by_trial(const TrialMeasure& embree, const TrialMeasure& vulkan,
                                 const std::string& vulkan_device, std::size_t tiles, std::size_t texels);

}  // namespace mixforge::baker
