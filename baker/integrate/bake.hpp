#pragma once
// One bake from a scene and mixers to the lightmap, the preview and the report
// (schema/bake_report.schema.json). The CLI and, later, the daemon call this.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "baker/integrate/atlas.hpp"
#include "baker/integrate/image_io.hpp"
#include "baker/integrate/integrator.hpp"
#include "baker/sampling/mixer4.hpp"
#include "baker/sampling/sampler.hpp"

namespace mixforge::baker {

struct BakeConfig {
  SamplerKind sampler = SamplerKind::mixforge_cmj;
  std::uint32_t spp = 256;
  std::uint32_t bounces = 2;
  float texel = 0;  // world units per texel; 0: the scene's bounding diagonal / 200
  std::uint64_t seed = 1;
  // "embree", "vulkan" or "auto": where a GPU has ray-tracing pipelines, both bake pass 0 of
  // the first tiles and the faster bakes the rest (backend_trial.hpp); else Embree.
  std::string backend = "embree";
  // auto also tries a CPU implementation of Vulkan ray tracing (lavapipe), which it otherwise
  // leaves out: on the same cores as Embree it is the slower (bench/results/bake/auto_backend/).
  bool auto_tries_cpu_vulkan = false;
  bool coherent = true;
  LightSampling light_sampling = LightSampling::automatic;  // emissive triangles in bounce 0
  // Every material two-sided (Material::two_sided), as if each said `mixforge_two_sided 1`.
  bool two_sided = false;
  std::uint32_t tiles_per_batch = 0;  // IntegratorOptions::tiles_per_batch
  std::optional<std::filesystem::path> reference;  // EXR for the rmse
  std::uint32_t preview_width = 512, preview_height = 512;
  std::uint32_t max_atlas_size = 16384;  // lightmap edge limit in texels (a smaller --texel is refused)
  std::function<void(const BakeProgress&)> progress;
  const std::atomic<bool>* cancel = nullptr;  // see IntegratorOptions::cancel
};

struct BakeOutput {
  Atlas atlas;
  IntegratorResult result;
  Image preview;
  nlohmann::json report;
};

// --backend vulkan where no Vulkan device has ray-tracing pipelines; what() says why.
class BackendUnavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Throws SceneError / std::invalid_argument / ImageError / BackendUnavailable with what went
// wrong.
BakeOutput bake(const Scene& scene, const BakeConfig& config,
                std::shared_ptr<const Mixer4> mixers);

// The lightmap as an image (atlas layout).
Image lightmap_image(const BakeOutput& out);

// lightmap.exr, lightmap.png, preview.png and report.json in dir (created if missing).
void write_outputs(const BakeOutput& out, const std::filesystem::path& dir);

// Root-mean-square difference over covered texels and channels; throws ImageError when
// the reference has another size.
double lightmap_rmse(const Atlas& atlas, const Lightmap& map, const Image& reference);

}  // namespace mixforge::baker
