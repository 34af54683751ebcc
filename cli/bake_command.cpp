// mixforge bake: bake a lightmap (baker/) with mixforge-cmj sampling or a baseline sampler,
// by the bake use case's rules (app/bake.hpp), as the daemon's bakes. Mixers come from the
// default family compiled into the baker, or from --mixers / --bundle / --run (JIT-compiled);
// this command reads the options, program texts and bundles, and opens the database.
#include <CLI/CLI.hpp>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <mutex>
#include <regex>
#include <sstream>

#include "app/bake.hpp"
#include "avalanche/evaluator.hpp"
#include "baker/integrate/bake.hpp"
#include "baker/integrate/obj_export.hpp"
#include "cli/commands.hpp"
#include "cli/program_input.hpp"
#include "cli/stored_functions.hpp"
#include "evolver/manager/run_manager.hpp"
#include "mixer/json_form.hpp"

namespace mixforge::cli {
namespace {

struct Opts {
  std::string scene = "cornell";
  std::vector<std::string> mixers;
  std::string bundle;
  std::string run;
  std::string sampler = "mixforge-cmj";
  std::uint32_t spp = 256;
  std::uint32_t bounces = 2;
  std::string texel;  // empty: the default (scene diagonal / 200)
  std::string backend = "auto";
  std::string light_sampling = "auto";
  bool two_sided = false;
  std::uint32_t tiles_per_batch = 0;
  bool auto_tries_cpu_vulkan = false;
  bool obj = false;
  std::string out = "bake-out";
  std::string reference;
  std::string seed = "1";
  std::string data = "mixforge-data";
  bool json = false;
};

std::uint64_t parse_seed(const std::string& s) {
  if (s.empty() || s.size() > 20 || s.find_first_not_of("0123456789") != std::string::npos)
    throw UsageError("bake: --seed must be a decimal integer 0..18446744073709551615, got '" + s + "'");
  errno = 0;
  const unsigned long long v = std::strtoull(s.c_str(), nullptr, 10);
  if (errno == ERANGE) throw UsageError("bake: --seed " + s + " is above 18446744073709551615");
  return v;
}

// --texel as a number (its range is the use case's rule, app/bake_settings.hpp); none if
// not given.
std::optional<double> parse_texel(const std::string& s) {
  if (s.empty()) return std::nullopt;
  const char* begin = s.c_str();
  char* end = nullptr;
  const double v = std::strtod(begin, &end);
  if (end == begin || *end != '\0')
    throw UsageError("bake: --texel must be a number (world units per texel), got '" + s + "'");
  return v;  // out of range (inf, 0 after underflow): refused by the rule
}

// Each --mixers value: a FUNCTION_ID (or several, comma-separated) from the store, checked as
// the daemon checks them (app/bake.hpp), or a file or program text (32-bit).
std::vector<baker::MixerInfo> mixers_from_arguments(const Opts& o) {
  static const std::regex ids("[0-9a-f]{16}(,[0-9a-f]{16})*");
  std::vector<baker::MixerInfo> lanes;
  std::unique_ptr<evolver::RunManager> db;
  for (std::size_t i = 0; i < o.mixers.size(); ++i) {
    const std::string& arg = o.mixers[i];
    const std::string value = "bake: --mixers value " + std::to_string(i + 1) + ": ";
    std::error_code ec;
    if (std::regex_match(arg, ids) && !std::filesystem::exists(arg, ec)) {
      if (!db) db = open_store(o.data, "bake");
      std::stringstream ss(arg);
      for (std::string id; std::getline(ss, id, ',');) {
        try {
          lanes.push_back(app::stored_lane(*db, id, "mixers"));
        } catch (const app::StoredNotFound& e) {
          throw UsageError(value + e.what() + " in " + o.data);
        } catch (const app::RequestError& e) {
          throw UsageError(value + e.what());
        }
      }
      continue;
    }
    try {
      lanes.push_back({parse_program_argument(arg, 32).program, -1, false});
    } catch (const std::runtime_error& e) {  // UsageError, app::RequestError
      // Which of several --mixers values: the parser's line:column is within it.
      throw UsageError("bake: --mixers value " + std::to_string(lanes.size() + 1) + ": " + e.what());
    }
  }
  // Score program texts only once every argument parsed: an exact chi2 of a 32-bit lane
  // takes tens of seconds, too long to spend before reporting a typo in a later lane.
  if (app::needs_scoring(lanes)) app::score_lanes(lanes, *avalanche::Evaluator::with_own_engine());
  return lanes;
}

// --run ID: the run's best family of four 32-bit lanes with the same step kinds, picked as
// `mixforge export --family 32,32,32,32 --run ID` picks it.
std::vector<baker::MixerInfo> mixers_from_run(const Opts& o) {
  const auto db = open_store(o.data, "bake");
  try {
    return app::family_lanes(*db, o.run, "run");
  } catch (const app::RequestError& e) {  // StoredNotFound too
    throw UsageError(std::string("bake: ") + e.what());
  }
}

std::vector<baker::MixerInfo> mixers_from_bundle(const std::string& file) {
  std::ifstream in(file);
  if (!in) throw UsageError("bake: cannot open bundle " + file);
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error& e) {
    throw UsageError("bake: " + file + ": " + e.what());
  }
  if (!j.is_object() || j.value("format", "") != "mixforge-shader-bundle" || !j.contains("programs") ||
      !j["programs"].is_array())
    throw UsageError("bake: " + file + " is not a mixforge shader bundle (mixforge export --bundle)");
  if (j.contains("variant") && j["variant"].is_object() && j["variant"].value("inverse", false))
    throw UsageError("bake: --bundle " + file + " was exported with --inverse: its code computes the inverse "
                     "programs, which no sampler uses; export the bundle without --inverse");
  std::vector<baker::MixerInfo> lanes;
  for (std::size_t i = 0; i < j["programs"].size(); ++i) {
    const auto& p = j["programs"][i];
    try {
      baker::MixerInfo m{mixer::program_from_json(p.at("program")), -1, false};
      app::check_lane_width(m.program, "bundle");
      if (p.contains("score") && p["score"].is_object()) {
        m.chi2 = p["score"].value("chi2", -1.0);
        m.exact = p["score"].value("exact", false);
      }
      lanes.push_back(m);
    } catch (const std::exception& e) {
      throw UsageError("bake: " + file + ": /programs/" + std::to_string(i) + ": " + e.what());
    }
  }
  return lanes;
}

// A one-line progress bar on stderr: pass, percent, texels/s, rays/s, ETA.
class ProgressBar {
 public:
  void operator()(const baker::BakeProgress& p) {
    std::lock_guard lock(mutex_);
    const double f = p.texels ? double(p.texels_done) / double(p.texels) : 1;
    const int width = 30, filled = static_cast<int>(f * width);
    const double eta = f > 0 ? p.seconds * (1 - f) / f : 0;
    std::fprintf(stderr, "\r%s %u/%u [%-*s] %3.0f%% %7.0f texels/s %6.2f Mrays/s ETA %5.1fs",
                 p.pass == 0 ? "direct" : "bounce", p.pass, p.passes - 1, width,
                 std::string(filled, '#').c_str(), f * 100,
                 p.seconds > 0 ? double(p.texels_done) / p.seconds : 0.0,
                 p.seconds > 0 ? double(p.rays) / p.seconds / 1e6 : 0.0, eta);
    if (p.texels_done == p.texels) std::fputc('\n', stderr);
    std::fflush(stderr);
  }

 private:
  std::mutex mutex_;
};

void run(const Opts& o) {
  if (int(!o.mixers.empty()) + int(!o.bundle.empty()) + int(!o.run.empty()) > 1)
    throw UsageError("bake: give one of --mixers, --bundle and --run");
  // The use case's rules (app/bake.hpp), as the daemon applies them.
  app::BakeRequest request;
  request.sampler = o.sampler;
  request.settings = {o.spp, o.bounces, parse_texel(o.texel)};
  request.seed = parse_seed(o.seed);
  request.backend = o.backend;
  request.light_sampling = o.light_sampling;
  request.two_sided = o.two_sided;
  if (!o.mixers.empty())
    request.mixers_field = "mixers";
  else if (!o.bundle.empty())
    request.mixers_field = "bundle";
  else if (!o.run.empty())
    request.mixers_field = "run";
  app::BakePlan plan;
  try {
    plan = app::plan_bake(request);
  } catch (const app::RequestError& e) {
    if (e.code() != "mixers-unused") throw;  // named by its option (cli/main.cpp)
    throw UsageError("bake: --" + *request.mixers_field +
                     " needs --sampler mixforge-cmj (the only sampler with mixers), got --sampler " + o.sampler);
  }
  if (o.tiles_per_batch > (1u << 16)) throw UsageError("bake: --tiles-per-batch must be 0..65536");
  app::BakeRun how;
  how.scene = o.scene;
  how.tiles_per_batch = o.tiles_per_batch;
  how.auto_tries_cpu_vulkan = o.auto_tries_cpu_vulkan;
  // Bad --reference and --out are bad input (exit 2), found before the bake, not after it.
  if (!o.reference.empty()) {
    try {
      baker::read_exr(o.reference);
    } catch (const baker::ImageError& e) {
      throw UsageError(std::string("bake: --reference: ") + e.what());
    }
    how.reference = o.reference;
  }
  {
    std::error_code ec;
    std::filesystem::create_directories(o.out, ec);
    if (ec) throw UsageError("bake: --out: cannot create the folder " + o.out + ": " + ec.message());
    if (!std::filesystem::is_directory(o.out, ec))
      throw UsageError("bake: --out: " + o.out + " is not a folder");
    if (::access(o.out.c_str(), W_OK) != 0) throw UsageError("bake: --out: cannot write in " + o.out);
  }

  if (app::uses_mixers(plan.sampler)) {
    if (!o.bundle.empty())
      plan.lanes = mixers_from_bundle(o.bundle);
    else if (!o.mixers.empty())
      plan.lanes = mixers_from_arguments(o);
    else if (!o.run.empty())
      plan.lanes = mixers_from_run(o);
  }

  auto bar = std::make_shared<ProgressBar>();
  if (isatty(STDERR_FILENO)) how.progress = [bar](const baker::BakeProgress& p) { (*bar)(p); };
  app::BakeResult baked;
  try {
    baked = app::run_bake(plan, how);
  } catch (const baker::SceneError& e) {
    throw UsageError(std::string("bake: ") + e.what());
  } catch (const std::invalid_argument& e) {  // the lanes (make_jit_mixer4), the bake's settings
    throw UsageError(std::string("bake: ") + e.what());
  } catch (const baker::BackendUnavailable& e) {
    throw UsageError(std::string("bake: --backend vulkan: ") + e.what());
  } catch (const baker::ImageError& e) {  // the reference, read after the bake: its size
    throw UsageError(std::string("bake: --reference: ") + e.what());
  }
  const baker::BakeOutput& out = baked.output;
  const baker::Scene& scene = baked.scene;
  baker::write_outputs(out, o.out);
  if (o.obj) baker::write_obj(scene, out.atlas, o.out);
  const auto& r = out.report;
  if (o.json) {
    std::cout << r.dump() << "\n";
    return;
  }
  std::printf("baked %s: %zu texels, %u spp, %u bounces, sampler %s, backend %s\n", scene.name.c_str(),
              out.atlas.texels.size(), o.spp, o.bounces, o.sampler.c_str(), r["backend"].get<std::string>().c_str());
  if (r.contains("backend_choice") && r["backend_choice"].is_string())
    std::printf("backend %s\n", r["backend_choice"].get<std::string>().c_str());
  if (const auto& b = r["back_hits"]; b["rays"].get<std::uint64_t>() > 0)
    std::printf("back hits: %llu rays on %llu triangles (%llu rays on %llu one-sided triangles gathered black)\n",
                (unsigned long long)b["rays"].get<std::uint64_t>(), (unsigned long long)b["triangles"].get<std::uint64_t>(),
                (unsigned long long)b["one_sided_rays"].get<std::uint64_t>(),
                (unsigned long long)b["one_sided_triangles"].get<std::uint64_t>());
  std::printf("rays %llu at %.2f Mrays/s; total %.2f s\n", (unsigned long long)r["rays"].get<std::uint64_t>(),
              r["rays_per_s"].get<double>() / 1e6, r["phases"]["total_s"].get<double>());
  if (!r["rmse"].is_null()) std::printf("rmse vs %s: %.6g\n", o.reference.c_str(), r["rmse"].get<double>());
  std::printf("wrote %s/{lightmap.exr,lightmap.png,preview.png,report.json%s}\n", o.out.c_str(),
              o.obj ? ",lightmap.obj,lightmap.mtl" : "");
}

}  // namespace

void add_bake_command(CLI::App& app) {
  auto o = std::make_shared<Opts>();
  auto* cmd = app.add_subcommand("bake", "Bake a lightmap (default: the Cornell box into ./bake-out/)");
  cmd->add_option("scene", o->scene, "cornell (built in), an .obj file or a Quake .map file (default: cornell)");
  cmd->add_option("--mixers", o->mixers,
                  "Mixer lanes x,y,z,w: FUNCTION_IDs (comma-separated) or 32-bit program texts "
                  "(repeat the option); fewer than four repeat the last");
  cmd->add_option("--bundle", o->bundle, "Mixers from a shader bundle (mixforge export --bundle)");
  cmd->add_option("--run", o->run,
                  "Mixers from a run's pool: its best family of four 32-bit lanes with the same step kinds "
                  "(as export --family 32,32,32,32 --run picks it)");
  cmd->add_option("--sampler", o->sampler, "mixforge-cmj (default), kensler-cmj, pcg, sobol-owen, independent");
  cmd->add_option("--spp", o->spp, "Hemisphere samples per texel and pass, and as many light samples in the direct pass "
                  "with --light-sampling mis (default 256)");
  cmd->add_option("--bounces", o->bounces, "Indirect bounces (default 2)");
  cmd->add_option("--texel", o->texel, "Texel size in world units (default: scene diagonal / 200)");
  cmd->add_option("--backend", o->backend,
                  "embree, vulkan (VK_KHR_ray_tracing_pipeline: a GPU, or Mesa's lavapipe on the CPU) or "
                  "auto (default: where a GPU has ray-tracing pipelines, Embree and Vulkan each bake the first "
                  "tiles of the direct pass and the faster bakes the rest; else Embree)");
  cmd->add_flag("--auto-tries-cpu-vulkan", o->auto_tries_cpu_vulkan,
                "With --backend auto, try a CPU implementation of Vulkan (Mesa's lavapipe) too; auto leaves it out "
                "otherwise, as slower than Embree on the same cores");
  cmd->add_option("--light-sampling", o->light_sampling,
                  "Emissive surfaces in the direct pass: mis (hemisphere rays and next-event estimation of the "
                  "emissive triangles, multiple importance sampling), hemisphere (hemisphere rays only) or auto "
                  "(default: mis unless emitters are 75 % of the scene's area or more)");
  cmd->add_flag("--two-sided", o->two_sided,
               "Every material two-sided: both sides of each face get texels, and a ray that hits a face from "
               "behind reads its back (default: only materials whose .mtl says mixforge_two_sided 1)");
  cmd->add_option("--tiles-per-batch", o->tiles_per_batch,
                  "Atlas tiles (16 x 16 texels) whose rays go to the back end in one call per sample (default 0: "
                  "the back end's own, 1 for Embree, about 64k rays for Vulkan); the lightmap does not depend on it");
  cmd->add_flag("--obj", o->obj,
               "Also write lightmap.obj and lightmap.mtl: the triangles as baked (a Quake map's after hidden faces "
               "are cut away) with the lightmap's atlas coordinates as UVs, albedo as Kd, emission as Ke, and the "
               "analytic lights as '# mixforge_light' comments (for another renderer or a viewer)");
  cmd->add_option("--out", o->out, "Output folder (default ./bake-out)");
  cmd->add_option("--reference", o->reference, "A lightmap.exr to compute the rmse against");
  cmd->add_option("--seed", o->seed, "Seed, 0..18446744073709551615 (default 1)");
  if (const char* env = std::getenv("MIXFORGE_DATA")) o->data = env;
  cmd->add_option("--data", o->data,
                  "Database folder for FUNCTION_IDs and --run (default $MIXFORGE_DATA or ./mixforge-data)");
  cmd->add_flag("--json", o->json, "Print the report as one JSON line (last line of stdout)");
  cmd->callback([o] { run(*o); });
}

}  // namespace mixforge::cli
