#include "baker/integrate/bake.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <optional>

#include "baker/integrate/backend_trial.hpp"
#include "baker/trace/embree_tracer.hpp"
#include "baker/integrate/preview.hpp"
#include "baker/trace/vulkan_tracer.hpp"

namespace mixforge::baker {
namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

nlohmann::json rgb(Vec3 v) { return nlohmann::json::array({v.x, v.y, v.z}); }

nlohmann::json seed_json(std::uint64_t seed) {
  if (seed <= 9007199254740991ull) return seed;
  return std::to_string(seed);
}

}  // namespace

double lightmap_rmse(const Atlas& atlas, const Lightmap& map, const Image& reference) {
  if (reference.width != map.width || reference.height != map.height)
    throw ImageError("the reference is " + std::to_string(reference.width) + " x " +
                     std::to_string(reference.height) + " but this bake's lightmap is " +
                     std::to_string(map.width) + " x " + std::to_string(map.height) +
                     " (bake the reference with the same scene and --texel)");
  double sum = 0;
  for (const AtlasTexel& t : atlas.texels) {
    const std::size_t i = std::size_t{t.y} * map.width + t.x;
    const Vec3 d = map.texels[i] - reference.pixels[i];
    sum += double(d.x) * d.x + double(d.y) * d.y + double(d.z) * d.z;
  }
  return atlas.texels.empty() ? 0 : std::sqrt(sum / (3.0 * atlas.texels.size()));
}

namespace {

// The back end a bake runs on, and what the report says of the choice.
struct ChosenBackend {
  std::string choice;  // "embree" or "vulkan"
  std::string why;     // auto: why this one ("" when asked for by name)
  std::unique_ptr<RayTracer> tracer;
  std::string device;
  double bvh_s = 0;
  std::optional<BackendTrial> trial;  // auto with a GPU: both back ends' trial tiles
  double trial_s = 0;                 // both back ends' trials (the kept one's pass 0 also counts in passes[0])
};

// auto: where a GPU has ray-tracing pipelines, both back ends bake pass 0 of the first tiles and
// the faster bakes the rest (backend_trial.hpp), keeping its trial tiles; else, or when the GPU
// fails, Embree, saying why. The tracer stays empty where Embree is to be built by name.
ChosenBackend try_both_backends(const Scene& scene, const Atlas& atlas, const Sampler& sampler,
                                const IntegratorOptions& io, bool tries_cpu_vulkan) {
  ChosenBackend b;
  b.choice = "embree";
  const VulkanProbe probe = probe_vulkan();
  if (probe.unavailable) {
    b.why = "auto: " + *probe.unavailable;
    return b;
  }
  if (probe.cpu && !tries_cpu_vulkan) {
    b.why = "auto: the Vulkan ray-tracing device " + probe.device +
            " is a CPU implementation, slower than Embree (--backend vulkan uses it)";
    return b;
  }
  try {
    auto t0 = Clock::now();
    std::unique_ptr<VulkanTracer> vk = make_vulkan_tracer(scene);
    const double vulkan_bvh_s = since(t0);
    t0 = Clock::now();
    std::unique_ptr<RayTracer> embree = make_embree_tracer(scene);
    const double embree_bvh_s = since(t0);
    t0 = Clock::now();
    b.trial = run_backend_trial(scene, atlas, *embree, *vk, vk->device_name(), sampler, io);
    b.trial_s = since(t0);
    b.choice = b.trial->choice.backend;
    b.why = b.trial->choice.why;
    if (b.choice == "vulkan") {
      b.device = vk->device_name();
      b.tracer = std::move(vk);
      b.bvh_s = vulkan_bvh_s;
    } else {
      b.device = "cpu";
      b.tracer = std::move(embree);
      b.bvh_s = embree_bvh_s;
    }
  } catch (const BakeCancelled&) {
    throw;
  } catch (const std::exception& e) {  // a GPU that fails here leaves Embree, saying why
    b = ChosenBackend{};
    b.choice = "embree";
    b.why = "auto: the Vulkan ray-tracing device " + probe.device + " failed (" + e.what() + "); Embree";
  }
  return b;
}

// The back end config.backend names, or auto's choice.
ChosenBackend choose_backend(const Scene& scene, const Atlas& atlas, const Sampler& sampler,
                             const IntegratorOptions& io, const BakeConfig& config) {
  ChosenBackend b;
  b.choice = config.backend;
  if (b.choice == "auto") b = try_both_backends(scene, atlas, sampler, io, config.auto_tries_cpu_vulkan);
  if (b.tracer) return b;
  const auto t0 = Clock::now();
  if (b.choice == "vulkan") {
    try {
      auto vk = make_vulkan_tracer(scene);
      b.device = vk->device_name();
      b.tracer = std::move(vk);
    } catch (const VulkanUnavailable& e) {
      throw BackendUnavailable(std::string("the Vulkan back end is unavailable: ") + e.what());
    }
  } else {
    b.tracer = make_embree_tracer(scene);
    b.device = "cpu";
  }
  b.bvh_s = since(t0);
  return b;
}

// Seconds of each phase of a bake.
struct Phases {
  double atlas_s = 0, bvh_s = 0, integrate_s = 0, preview_s = 0;
};

nlohmann::json radiance_json(const BakeOutput& out) {
  Vec3 mean{}, lo{INFINITY, INFINITY, INFINITY}, hi{-INFINITY, -INFINITY, -INFINITY};
  for (const AtlasTexel& t : out.atlas.texels) {
    const Vec3 v = out.result.lightmap.at(t.x, t.y);
    mean += v;
    for (int c = 0; c < 3; ++c) {
      lo[c] = std::fmin(lo[c], v[c]);
      hi[c] = std::fmax(hi[c], v[c]);
    }
  }
  if (!out.atlas.texels.empty()) mean = mean / float(out.atlas.texels.size());
  else lo = hi = {};
  return {{"mean", rgb(mean)}, {"min", rgb(lo)}, {"max", rgb(hi)}};
}

nlohmann::json trial_json(const BackendTrial& trial, const std::string& kept) {
  auto measured = [](const TrialMeasure& m) {
    return nlohmann::json{{"texels", m.texels},
                          {"rays", m.rays},
                          {"seconds", m.seconds},
                          {"texels_per_s", m.texels_per_s()},
                          {"rays_per_s", m.rays_per_s()},
                          {"complete", m.complete},
                          {"tiles_per_batch", m.tiles_per_batch}};
  };
  return {{"tiles", trial.tiles},
          {"texels", trial.texels},
          {"embree", measured(trial.embree)},
          {"vulkan", measured(trial.vulkan)},
          {"kept", kept}};
}

nlohmann::json mixers_json(const Mixer4& mixers) {
  nlohmann::json lanes = nlohmann::json::array();
  const char* lane_names[] = {"x", "y", "z", "w"};
  int l = 0;
  for (const MixerInfo& m : mixers.lanes()) {
    nlohmann::json j = {{"lane", lane_names[l++]},
                        {"id", m.program.id()},
                        {"width", m.program.width()},
                        {"program", m.program.canonical()}};
    j["chi2"] = m.chi2 >= 0 ? nlohmann::json(m.chi2) : nlohmann::json(nullptr);
    j["exact"] = m.chi2 >= 0 && m.exact;
    lanes.push_back(j);
  }
  return lanes;
}

// The report (schema/bake_report.schema.json) but for rmse and the total time.
nlohmann::json bake_report(const Scene& scene, const BakeConfig& config, const BakeOutput& out,
                           const ChosenBackend& backend, const IntegratorOptions& io, const Mixer4* mixers,
                           const Phases& phases) {
  nlohmann::json r;
  std::uint64_t rays = 0;
  double trace_s = 0;
  for (const PassStats& s : out.result.stats) {
    rays += s.rays;
    trace_s += s.seconds;
  }
  r["format"] = "mixforge-bake-report";
  r["version"] = 1;
  r["scene"] = {{"name", scene.name},
                {"triangles", scene.triangles.size()},
                {"lights", scene.lights.size()},
                {"materials", scene.materials.size()},
                {"origin", nlohmann::json::array({scene.origin.x, scene.origin.y, scene.origin.z})}};
  r["texels"] = out.atlas.texels.size();
  r["atlas"] = {{"width", out.atlas.width},
                {"height", out.atlas.height},
                {"charts", out.atlas.charts},
                {"back_charts", out.atlas.back_charts},
                {"texel_size", out.atlas.options.texel_size}};
  r["rays"] = rays;
  r["rays_per_s"] = trace_s > 0 ? double(rays) / trace_s : 0.0;
  r["backend"] = backend.tracer->name();
  r["backend_device"] = backend.device;
  r["backend_choice"] = backend.why.empty() ? nlohmann::json(nullptr) : nlohmann::json(backend.why);
  if (const std::string t = backend.tracer->traversal(); !t.empty()) r["traversal"] = t;
  r["backend_trial"] = backend.trial ? trial_json(*backend.trial, backend.choice) : nlohmann::json(nullptr);
  r["sampler"] = std::string(sampler_name(config.sampler));
  r["spp"] = config.spp;
  r["bounces"] = config.bounces;
  r["seed"] = seed_json(config.seed);
  r["ray_order"] = config.coherent ? "stratum-batches" : "random";
  r["tiles_per_batch"] = tiles_per_batch(out.atlas, *backend.tracer, io);
  const bool mis = out.result.light.mode == LightSampling::mis;
  r["light_sampling"] = {{"mode", std::string(light_sampling_name(out.result.light.mode))},
                         {"requested", std::string(light_sampling_name(config.light_sampling))},
                         {"why", out.result.light.why},
                         {"heuristic", mis ? nlohmann::json(std::string(mis_heuristic_name(io.heuristic)))
                                           : nlohmann::json(nullptr)},
                         {"emissive_triangles", out.result.emissive_triangles},
                         {"emissive_area_fraction", out.result.emissive_area_fraction}};
  r["radiance"] = radiance_json(out);
  std::size_t two_sided_triangles = 0;
  for (std::uint8_t t : out.atlas.two_sided) two_sided_triangles += t;
  const BackHits& back = out.result.back_hits;
  r["back_hits"] = {{"two_sided_triangles", two_sided_triangles},
                    {"rays", back.rays},
                    {"triangles", back.triangles},
                    {"one_sided_rays", back.one_sided_rays},
                    {"one_sided_triangles", back.one_sided_triangles}};
  const bool with_mixers = mixers && config.sampler == SamplerKind::mixforge_cmj;
  r["mixer_origin"] = with_mixers ? nlohmann::json(mixers->origin()) : nlohmann::json(nullptr);
  r["mixers"] = with_mixers ? mixers_json(*mixers) : nlohmann::json::array();
  nlohmann::json passes = nlohmann::json::array();
  for (std::size_t i = 0; i < out.result.stats.size(); ++i) {
    const PassStats& s = out.result.stats[i];
    passes.push_back({{"pass", i},
                      {"kind", i == 0 ? "direct" : "bounce"},
                      {"rays", s.rays},
                      {"seconds", s.seconds},
                      {"rays_per_s", s.seconds > 0 ? double(s.rays) / s.seconds : 0.0},
                      {"dilate_seconds", s.dilate_seconds}});
  }
  r["passes"] = passes;
  r["phases"] = {{"atlas_s", phases.atlas_s},
                 {"bvh_s", phases.bvh_s},
                 {"integrate_s", phases.integrate_s},
                 {"preview_s", phases.preview_s}};
  if (backend.trial) r["phases"]["backend_trial_s"] = backend.trial_s;
  return r;
}

}  // namespace

BakeOutput bake(const Scene& given, const BakeConfig& config, std::shared_ptr<const Mixer4> mixers) {
  Scene all_two_sided;  // config.two_sided: a copy whose materials are all two-sided
  if (config.two_sided) {
    all_two_sided = given;
    for (Material& m : all_two_sided.materials) m.two_sided = true;
  }
  const Scene& scene = config.two_sided ? all_two_sided : given;
  if (config.backend != "embree" && config.backend != "vulkan" && config.backend != "auto")
    throw std::invalid_argument("unknown backend '" + config.backend + "' (embree, vulkan, auto)");
  if (config.spp == 0) throw std::invalid_argument("spp must be at least 1");
  validate(scene);
  BakeOutput out;
  Phases phases;
  const auto t_all = Clock::now();

  auto t0 = Clock::now();
  AtlasOptions ao;
  ao.max_size = config.max_atlas_size;
  ao.texel_size = config.texel > 0 ? config.texel : bounds(scene).diagonal() / 200.0f;
  out.atlas = build_atlas(scene, ao);
  phases.atlas_s = since(t0);

  const auto sampler = make_sampler(config.sampler, config.spp, config.seed,
                                    config.sampler == SamplerKind::mixforge_cmj ? mixers : nullptr);
  IntegratorOptions io;
  io.bounces = config.bounces;
  io.coherent = config.coherent;
  io.light_sampling = config.light_sampling;
  io.progress = config.progress;
  io.cancel = config.cancel;
  io.tiles_per_batch = config.tiles_per_batch;

  const ChosenBackend backend = choose_backend(scene, out.atlas, *sampler, io, config);
  phases.bvh_s = backend.bvh_s;
  if (backend.trial) io.head = &backend.trial->head;  // the winner's trial tiles: not traced again
  t0 = Clock::now();
  out.result = integrate(scene, out.atlas, *backend.tracer, *sampler, io);
  phases.integrate_s = since(t0);

  if (config.cancel && config.cancel->load()) throw BakeCancelled();
  // The preview casts 4 rays per call: Embree, whose calls cost no submission (a Vulkan
  // queue round trip per 4 rays would take longer than the bake).
  t0 = Clock::now();
  std::unique_ptr<RayTracer> preview_tracer;
  if (backend.choice != "embree") preview_tracer = make_embree_tracer(scene);
  out.preview =
      render_preview(scene, out.atlas, out.result.lightmap, preview_tracer ? *preview_tracer : *backend.tracer,
                     config.preview_width, config.preview_height);
  phases.preview_s = since(t0);

  out.report = bake_report(scene, config, out, backend, io, mixers.get(), phases);
  nlohmann::json& r = out.report;
  if (config.reference) {
    const Image ref = read_exr(*config.reference);
    r["rmse"] = lightmap_rmse(out.atlas, out.result.lightmap, ref);
    r["reference"] = config.reference->string();
  } else {
    r["rmse"] = nullptr;
  }
  r["phases"]["total_s"] = since(t_all);
  return out;
}

Image lightmap_image(const BakeOutput& out) {
  return {out.result.lightmap.width, out.result.lightmap.height, out.result.lightmap.texels};
}

void write_outputs(const BakeOutput& out, const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw ImageError("cannot create " + dir.string() + ": " + ec.message());
  const Image lm = lightmap_image(out);
  write_exr(dir / "lightmap.exr", lm);
  std::vector<Vec3> covered;
  for (const AtlasTexel& t : out.atlas.texels) covered.push_back(out.result.lightmap.at(t.x, t.y));
  write_png(dir / "lightmap.png", lm, auto_exposure(covered));
  write_png(dir / "preview.png", out.preview, auto_exposure(out.preview.pixels));
  std::ofstream f(dir / "report.json");
  f << out.report.dump(2) << "\n";
  if (!f) throw ImageError("cannot write " + (dir / "report.json").string());
}

}  // namespace mixforge::baker
