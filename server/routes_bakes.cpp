// Lightmap bakes: POST /api/v1/bakes (202 with the job), GET /api/v1/bakes[/{id}],
// GET /api/v1/bakes/{id}/{lightmap.png,lightmap.exr,preview.png,report.json}, progress as
// SSE (/events), DELETE to cancel and remove. The jobs run in server/bake_jobs; this file
// turns requests into BakeSpecs (mixers by function id, run id or program text) and jobs
// into responses. Without the baker module in the build every route answers 501.
#include <algorithm>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "evolver/manager/run_manager.hpp"
#include "server/api.hpp"
#include "server/problem.hpp"
#include "server/query.hpp"

#ifdef MIXFORGE_WITH_BAKER
#include "server/bake_jobs.hpp"
#include "server/event_stream.hpp"
#include "app/bake_settings.hpp"
#include "app/program_input.hpp"
#include "server/schema_validator.hpp"
#include "app/family_lookup.hpp"
#endif

namespace mixforge::server {

#ifdef MIXFORGE_WITH_BAKER
bool bakes_available() { return true; }

namespace {

std::string quoted(const std::string& s) {
  return nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// Bake ids are "b" + 11 hex digits; anything else cannot name one.
const std::string& bake_id_param(const Request& req) {
  const std::string& id = req.param("id");
  const bool ok = id.size() == 12 && id[0] == 'b' &&
                  std::all_of(id.begin() + 1, id.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
  if (!ok) throw HttpError(404, "bake-not-found", "no bake with id " + quoted(id));
  return id;
}

// The daemon sets the jobs up; a server assembled without them (in-process tests) answers
// as a build without the baker does.
BakeJobs& jobs(ApiContext& ctx) {
  if (!ctx.bakes)
    throw HttpError(501, "bakes-not-available", "this server runs no bake jobs (started without them)");
  return *ctx.bakes;
}

HttpError not_found(const std::string& id) { return HttpError(404, "bake-not-found", "no bake with id " + quoted(id)); }

BakeSpec::Lane lane_of(const evolver::ScoredFunction& f) {
  BakeSpec::Lane l;
  l.program = f.program;
  // The pool's ranking score (exact, else the estimate, never below 0): a sampled
  // estimate can fall below zero, and a lane without a score would be scored again.
  l.chi2 = f.rank();
  l.exact = f.chi2_exact.has_value() || f.exact;
  return l;
}

void check_width(const mixer::Program& p, const std::string& field) {
  if (p.width() != 32)
    throw HttpError(422, "mixer-not-32-bit",
                    "the baker's mixers are 32-bit lanes; this program is " + std::to_string(p.width()) + "-bit")
        .with_field(field);
}

// The body's mixers: function ids (stored, with their scores), a run's best same-kind
// family of four 32-bit lanes (as export --family 32,32,32,32 --run picks it), or program
// text (scored exactly by the job before it bakes).
void read_mixers(ApiContext& ctx, const nlohmann::json& m, BakeSpec& spec) {
  if (m.contains("function_ids")) {
    const auto& ids = m["function_ids"];
    for (std::size_t i = 0; i < ids.size(); ++i) {
      const std::string field = "/mixers/function_ids/" + std::to_string(i);
      const std::string id = ids[i].get<std::string>();
      const auto f = ctx.runs.function(id);
      if (!f) throw HttpError(404, "function-not-found", "no function with id " + quoted(id)).with_field(field);
      check_width(f->program, field);
      spec.mixers.push_back(lane_of(*f));
    }
    spec.mixers_source = "function_ids";
  } else if (m.contains("run")) {
    const std::string run = m["run"].get<std::string>();
    std::vector<evolver::ScoredFunction> family;
    try {
      family = app::best_family(ctx.runs, run, {32, 32, 32, 32});
    } catch (const evolver::RunNotFound& e) {
      throw HttpError(404, "run-not-found", e.what()).with_field("/mixers/run");
    } catch (const app::NoFamily& e) {
      throw HttpError(422, "no-family", e.what()).with_field("/mixers/run");
    } catch (const std::invalid_argument& e) {
      throw HttpError(422, "no-family", e.what()).with_field("/mixers/run");
    }
    for (const auto& f : family) spec.mixers.push_back(lane_of(f));
    spec.mixers_source = "run " + run;
  } else {
    const auto& programs = m.at("programs");
    for (std::size_t i = 0; i < programs.size(); ++i) {
      const std::string field = "/mixers/programs/" + std::to_string(i);
      BakeSpec::Lane l;
      l.program = app::program_from_value(programs[i], {32, 64, "mixers.programs[" + std::to_string(i) + "]", "mixers"});
      check_width(l.program, field);
      spec.mixers.push_back(std::move(l));
    }
    spec.mixers_source = "programs";
  }
}

BakeSpec read_bake_request(ApiContext& ctx, const Request& req) {
  const nlohmann::json body = parse_json_body(req);
  ctx.schemas.validate("bake_request.schema.json", body);
  const BakeLimits& limits = jobs(ctx).limits();
  BakeSpec spec;
  nlohmann::json echo = body;
  if (body.contains("scene") && body["scene"].is_object()) {
    const auto& s = body["scene"];
    spec.scene_format = s.at("format").get<std::string>();
    spec.scene_content = s.at("content").get<std::string>();
    if (spec.scene_format == "obj" && s.contains("materials"))
      for (const auto& [name, text] : s["materials"].items()) spec.materials[name] = text.get<std::string>();
    echo["scene"] = {{"format", spec.scene_format},
                     {"name", s.value("name", "scene." + spec.scene_format)},
                     {"bytes", spec.scene_content.size()}};
  } else {
    spec.scene = body.value("scene", std::string("cornell"));
    echo["scene"] = spec.scene;
  }
  spec.sampler = body.value("sampler", spec.sampler);
  // The bake's rules (app/bake_settings.hpp) under this server's caps.
  app::BakeSettings settings{body.value("spp", spec.spp), body.value("bounces", spec.bounces), std::nullopt};
  if (body.contains("texel")) settings.texel = body["texel"].get<double>();
  const app::CheckedBakeSettings checked =
      app::check_bake_settings(settings, app::BakePolicy{limits.max_spp, limits.max_bounces});
  spec.spp = checked.spp;
  spec.bounces = checked.bounces;
  spec.texel = settings.texel.value_or(0.0);  // as given: a reference bake is matched by it
  spec.seed = body.value("seed", std::uint64_t{1});
  spec.backend = body.value("backend", spec.backend);
  spec.light_sampling = body.value("light_sampling", spec.light_sampling);
  spec.two_sided = body.value("two_sided", false);
  spec.reference = body.value("reference", std::string());
  if (body.contains("mixers")) {
    if (spec.sampler != "mixforge-cmj")
      throw HttpError(422, "mixers-unused", "mixers are used by the mixforge-cmj sampler only, not " + spec.sampler)
          .with_field("/mixers");
    read_mixers(ctx, body["mixers"], spec);
  }
  echo["sampler"] = spec.sampler;
  echo["spp"] = spec.spp;
  echo["bounces"] = spec.bounces;
  echo["seed"] = spec.seed;
  echo["backend"] = spec.backend;
  echo["light_sampling"] = spec.light_sampling;
  echo["two_sided"] = spec.two_sided;
  echo["mixers_source"] = spec.mixers_source;
  spec.request = std::move(echo);
  return spec;
}

Response post_bake(ApiContext& ctx, const Request& req) {
  QueryReader q(req, {});
  nlohmann::json job = jobs(ctx).submit(read_bake_request(ctx, req));
  Response r = Response::json(202, job);
  r.headers.emplace_back("Location", "/api/v1/bakes/" + job["id"].get<std::string>());
  return r;
}

Response list_bakes(ApiContext& ctx, const Request& req) {
  QueryReader q(req, {"limit", "offset"});
  const auto limit = q.integer("limit", 1, static_cast<std::int64_t>(ctx.limits.max_page)).value_or(100);
  const auto offset = q.integer("offset", 0, 1'000'000'000).value_or(0);
  std::size_t total = 0;
  const auto items = jobs(ctx).list(static_cast<std::size_t>(offset), static_cast<std::size_t>(limit), &total);
  return Response::json(200, {{"total", total}, {"items", items}});
}

Response get_bake(ApiContext& ctx, const Request& req) {
  QueryReader q(req, {});
  const std::string& id = bake_id_param(req);
  auto job = jobs(ctx).get(id);
  if (!job) throw not_found(id);
  return Response::json(200, *job);
}

Response delete_bake(ApiContext& ctx, const Request& req) {
  QueryReader q(req, {});
  const std::string& id = bake_id_param(req);
  if (!jobs(ctx).remove(id)) throw not_found(id);
  Response r;
  r.status = 204;
  r.content_type.clear();
  return r;
}

Response get_events(ApiContext& ctx, const Request& req) {
  QueryReader q(req, {});
  const std::string& id = bake_id_param(req);
  if (!jobs(ctx).get(id)) throw not_found(id);
  auto client = ctx.events.attach("bake:" + id);
  if (!jobs(ctx).follow(id, client)) {
    client->close();
    throw not_found(id);
  }
  Response r;
  r.status = 200;
  r.content_type = "text/event-stream";
  r.stream = std::move(client);
  return r;
}

Response get_file(ApiContext& ctx, const Request& req, const std::string& name, const std::string& type) {
  QueryReader q(req, {});
  const std::string& id = bake_id_param(req);
  const auto job = jobs(ctx).get(id);
  if (!job) throw not_found(id);
  const auto path = jobs(ctx).file(id, name);
  if (!path)
    throw HttpError(409, "bake-not-done",
                    "bake " + id + " is " + (*job)["state"].get<std::string>() + ": its files exist once it is done");
  std::ifstream in(*path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (!in) throw HttpError(404, "bake-file-missing", "bake " + id + " has no " + name + " (removed from its folder)");
  return Response::text(200, bytes.str(), type);
}

}  // namespace

void add_bake_routes(Router& router, ApiContext& ctx) {
  auto h = [&ctx](Response (*fn)(ApiContext&, const Request&)) {
    return [&ctx, fn](const Request& r) { return fn(ctx, r); };
  };
  const std::string base = "/api/v1/bakes";
  // Creation reads the store (function ids, a run's family): control lane; the rest are
  // reads of the job table or of files.
  router.add("POST", base, h(post_bake), Exec::control);
  router.add("GET", base, h(list_bakes), Exec::read);
  router.add("GET", base + "/{id}", h(get_bake), Exec::read);
  router.add("DELETE", base + "/{id}", h(delete_bake), Exec::control);
  router.add("GET", base + "/{id}/events", h(get_events), Exec::read);
  const std::pair<const char*, const char*> files[] = {{"lightmap.png", "image/png"},
                                                       {"lightmap.exr", "image/x-exr"},
                                                       {"preview.png", "image/png"},
                                                       {"report.json", "application/json"}};
  for (const auto& [name, type] : files)
    router.add("GET", base + "/{id}/" + name,
               [&ctx, name = std::string(name), type = std::string(type)](const Request& r) {
                 return get_file(ctx, r, name, type);
               },
               Exec::read);
}

#else
bool bakes_available() { return false; }

void add_bake_routes(Router& router, ApiContext&) {
  auto not_built = [](const Request&) -> Response {
    throw HttpError(501, "bakes-not-available",
                    "lightmap baking is not part of this build (the baker module is missing); "
                    "rebuild mixforge with baker/ to use /bakes");
  };
  const std::string base = "/api/v1/bakes";
  router.add("POST", base, not_built);
  router.add("GET", base, not_built);
  router.add("GET", base + "/{id}", not_built);
  router.add("DELETE", base + "/{id}", not_built);
  router.add("GET", base + "/{id}/events", not_built);
  for (const char* name : {"lightmap.png", "lightmap.exr", "preview.png", "report.json"})
    router.add("GET", base + "/" + "{id}/" + name, not_built);
}
#endif

}  // namespace mixforge::server
