#include "app/bake.hpp"

#include <memory>
#include <stdexcept>

#include "app/family_lookup.hpp"
#include "avalanche/stats/chi_square.hpp"
#include "avalanche/counts.hpp"
#include "avalanche/evaluator.hpp"
#include "baker/sampling/default_mixer4.hpp"
#include "baker/sampling/jit_mixer4.hpp"
#include "baker/load/scene_source.hpp"
#include "evolver/manager/run_manager.hpp"
#include "jit/engine.hpp"

namespace mixforge::app {

bool uses_mixers(baker::SamplerKind sampler) { return sampler == baker::SamplerKind::mixforge_cmj; }

BakePlan plan_bake(const BakeRequest& request, const BakePolicy& policy) {
  BakePlan plan;
  try {
    plan.sampler = baker::sampler_from_name(request.sampler);
  } catch (const std::invalid_argument& e) {
    throw RequestError("sampler", "out-of-range", e.what());
  }
  // Mixers with a sampler that takes none would be dropped without a word.
  if (request.mixers_field && !uses_mixers(plan.sampler))
    throw RequestError(*request.mixers_field, "mixers-unused",
                       "mixers are used by the mixforge-cmj sampler only, not " + request.sampler);
  const CheckedBakeSettings settings = check_bake_settings(request.settings, policy);
  plan.spp = settings.spp;
  plan.bounces = settings.bounces;
  plan.texel = settings.texel;
  if (request.backend != "embree" && request.backend != "vulkan" && request.backend != "auto")
    throw RequestError("backend", "out-of-range", "must be embree, vulkan or auto, got '" + request.backend + "'");
  plan.backend = request.backend;
  try {
    plan.light_sampling = baker::light_sampling_from_name(request.light_sampling);
  } catch (const std::invalid_argument& e) {
    throw RequestError("light_sampling", "out-of-range", e.what());
  }
  plan.seed = request.seed;
  plan.two_sided = request.two_sided;
  return plan;
}

void check_lane_width(const mixer::Program& program, const std::string& field) {
  if (program.width() != 32)
    throw RequestError(field, "mixer-not-32-bit",
                       "the baker's mixers are 32-bit lanes; this program is " + std::to_string(program.width()) +
                           "-bit");
}

namespace {

baker::MixerInfo lane_of(const evolver::ScoredFunction& f) {
  return {f.program, f.rank(), f.chi2_exact.has_value() || f.exact};
}

}  // namespace

baker::MixerInfo stored_lane(evolver::RunManager& store, const std::string& id, const std::string& field) {
  const auto f = store.function(id);
  if (!f) throw StoredNotFound(field, "function-not-found", "no function with id " + id);
  check_lane_width(f->program, field);
  return lane_of(*f);
}

std::vector<baker::MixerInfo> family_lanes(evolver::RunManager& store, const std::string& run,
                                           const std::string& field) {
  std::vector<evolver::ScoredFunction> family;
  try {
    family = best_family(store, run, {32, 32, 32, 32});
  } catch (const evolver::RunNotFound& e) {
    throw StoredNotFound(field, "run-not-found", e.what());
  } catch (const NoFamily& e) {
    throw RequestError(field, "no-family", e.what());
  } catch (const std::invalid_argument& e) {  // a score that cannot rank
    throw RequestError(field, "no-family", e.what());
  }
  std::vector<baker::MixerInfo> lanes;
  for (const auto& f : family) lanes.push_back(lane_of(f));
  return lanes;
}

bool needs_scoring(const std::vector<baker::MixerInfo>& lanes) {
  for (const baker::MixerInfo& m : lanes)
    if (m.chi2 < 0) return true;
  return false;
}

void score_lanes(std::vector<baker::MixerInfo>& lanes, const avalanche::Evaluator& evaluator,
                 const std::atomic<bool>* cancel) {
  for (baker::MixerInfo& m : lanes) {
    if (m.chi2 >= 0) continue;
    m.chi2 = avalanche::score(evaluator.counts_exact(m.program, cancel)).chi2;
    m.exact = true;
  }
}

BakeResult run_bake(const BakePlan& plan, const BakeRun& run) {
  std::shared_ptr<const baker::Mixer4> mixers;
  if (uses_mixers(plan.sampler))
    mixers = plan.lanes.empty() ? baker::default_mixer4()
                                : baker::make_jit_mixer4(plan.lanes, std::make_shared<jit::Engine>());
  BakeResult result;
  result.scene = baker::load_scene(run.scene);
  baker::BakeConfig config;
  config.sampler = plan.sampler;
  config.spp = plan.spp;
  config.bounces = plan.bounces;
  config.texel = plan.texel;
  config.seed = plan.seed;
  config.backend = plan.backend;
  config.light_sampling = plan.light_sampling;
  config.two_sided = plan.two_sided;
  config.tiles_per_batch = run.tiles_per_batch;
  config.auto_tries_cpu_vulkan = run.auto_tries_cpu_vulkan;
  config.max_atlas_size = run.max_atlas_size;
  config.reference = run.reference;
  config.progress = run.progress;
  config.cancel = run.cancel;
  result.output = baker::bake(result.scene, config, mixers);
  return result;
}

}  // namespace mixforge::app
