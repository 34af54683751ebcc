#pragma once
// The bake use case, one for `mixforge bake` and the daemon's bakes (POST /api/v1/bakes and
// its jobs). A request in names and numbers becomes a plan by the rules here (plan_bake); the
// lanes it asks for by stored id or as a run's family become the plan's mixers (stored_lane,
// family_lanes), every lane a 32-bit program; lanes without a score are scored exactly
// (score_lanes); run_bake bakes a plan. A broken rule is a RequestError naming the field in
// the request's own terms; a stored function or run that is not there, a StoredNotFound.
#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "app/bake_settings.hpp"
#include "app/request_error.hpp"
#include "baker/integrate/bake.hpp"
#include "baker/integrate/light_sampler.hpp"
#include "baker/sampling/mixer4.hpp"
#include "baker/sampling/sampler.hpp"
#include "baker/scene/scene.hpp"

namespace mixforge::avalanche {
class Evaluator;
}
namespace mixforge::evolver {
class RunManager;
}

namespace mixforge::app {

// A stored function or run that the request names and the store does not hold (the daemon
// answers 404); code "function-not-found" or "run-not-found".
class StoredNotFound : public RequestError {
 public:
  using RequestError::RequestError;
};

// A bake as asked for, by name.
struct BakeRequest {
  std::string sampler = "mixforge-cmj";
  BakeSettings settings;
  std::uint64_t seed = 1;
  std::string backend = "embree";  // embree, vulkan, auto
  std::string light_sampling = "auto";
  bool two_sided = false;
  // Where the request gives mixers, in its own terms ("mixers"; the command line's "mixers",
  // "bundle" or "run"); none: the shipped family with mixforge-cmj.
  std::optional<std::string> mixers_field;
};

// A bake by the rules: names resolved, numbers in range. lanes: the mixers (1..4, 32-bit, a
// score each or chi2 < 0 for score_lanes), empty for the shipped family or a sampler without
// mixers; the entry point fills them (stored_lane, family_lanes, its own program parsing).
struct BakePlan {
  baker::SamplerKind sampler = baker::SamplerKind::mixforge_cmj;
  std::uint32_t spp = 256;
  std::uint32_t bounces = 2;
  float texel = 0;  // world units per texel; 0: the scene's diagonal / 200
  std::uint64_t seed = 1;
  std::string backend = "embree";
  baker::LightSampling light_sampling = baker::LightSampling::automatic;
  bool two_sided = false;
  std::vector<baker::MixerInfo> lanes;
};

// Whether a sampler takes mixers: mixforge-cmj only (schema/bake_request.schema.json says the
// same on "mixers" as x-samplers, which the dashboard reads; a test holds the two together).
bool uses_mixers(baker::SamplerKind sampler);

// Throws RequestError: "sampler", "backend", "light_sampling" (unknown names, code
// "out-of-range"), spp / bounces / texel (check_bake_settings under policy), and
// *request.mixers_field with code "mixers-unused" when mixers come with a sampler that takes
// none. The lanes are left empty.
BakePlan plan_bake(const BakeRequest& request, const BakePolicy& policy = {});

// The 32-bit lane rule: throws RequestError(field, "mixer-not-32-bit") for another width.
void check_lane_width(const mixer::Program& program, const std::string& field);

// A stored function as a lane: its ranking score (exact, else the estimate, never below 0: a
// noise-corrected estimate below 0 would read as "not scored"). Throws StoredNotFound(field,
// "function-not-found") and the 32-bit lane rule's RequestError.
baker::MixerInfo stored_lane(evolver::RunManager& store, const std::string& id, const std::string& field);

// Run `run`'s best family of four 32-bit lanes with the same step kinds (as export --family
// 32,32,32,32 --run picks it). Throws StoredNotFound(field, "run-not-found") and
// RequestError(field, "no-family").
std::vector<baker::MixerInfo> family_lanes(evolver::RunManager& store, const std::string& run,
                                           const std::string& field);

// Lanes without a score (chi2 < 0) scored exactly (2^32 inputs each); a cancel stops the count
// (avalanche::EvaluationCancelled).
bool needs_scoring(const std::vector<baker::MixerInfo>& lanes);
void score_lanes(std::vector<baker::MixerInfo>& lanes, const avalanche::Evaluator& evaluator,
                 const std::atomic<bool>* cancel = nullptr);

// How and where a plan is baked (what the entry point decides, not the request).
struct BakeRun {
  std::string scene = "cornell";  // load_scene's spec: "cornell" or a .obj / .map file
  std::uint32_t max_atlas_size = 16384;
  std::uint32_t tiles_per_batch = 0;
  bool auto_tries_cpu_vulkan = false;
  std::optional<std::filesystem::path> reference;  // a lightmap.exr for the report's rmse
  std::function<void(const baker::BakeProgress&)> progress;
  const std::atomic<bool>* cancel = nullptr;
};

struct BakeResult {
  baker::Scene scene;  // as loaded (mixforge bake --obj writes it)
  baker::BakeOutput output;
};

// Loads the scene and bakes it with the plan's mixers (JIT-compiled lanes, or the shipped
// family). Throws what baker::load_scene, baker::make_jit_mixer4 and baker::bake throw.
BakeResult run_bake(const BakePlan& plan, const BakeRun& run);

}  // namespace mixforge::app
