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
#include "server/api/api.hpp"
#include "server/http/problem.hpp"
#include "server/http/query.hpp"

#ifdef MIXFORGE_WITH_BAKER
#include "app/bake.hpp"
#include "app/program_input.hpp"
#include "server/jobs/bake_jobs.hpp"
#include "server/http/event_stream.hpp"
#include "server/api/schema_validator.hpp"
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
  const bool ok = id.size() == 12 && id[0] == 'b' && std::all_of(id.begin() + 1, id.end(), [](char c) {
                    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
                  });
  if (!ok) throw HttpError(404, "bake-not-found", "no bake with id " + quoted(id));
  return id;
}

// The daemon sets the jobs up; a server assembled without them (in-process tests) answers
// as a build without the baker does.
BakeJobs& jobs(ApiContext& ctx) {
  if (!ctx.bakes) throw HttpError(501, "bakes-not-available", "this server runs no bake jobs (started without them)");
  return *ctx.bakes;
}

HttpError not_found(const std::string& id) { return HttpError(404, "bake-not-found", "no bake with id " + quoted(id)); }

// A stored function or run the body names that is not there: 404 naming the field.
HttpError not_stored(const app::StoredNotFound& e) {
  return HttpError(404, e.code(), e.what()).with_field(path_to_pointer(e.field()));
}

// The body's mixers (app/bake.hpp): function ids (stored, with their scores), a run's best
// same-kind family of four 32-bit lanes, or program text (scored exactly by the job before
// it bakes).
void read_mixers(ApiContext& ctx, const nlohmann::json& m, BakeSpec& spec) {
  std::vector<baker::MixerInfo>& lanes = spec.plan.lanes;
  try {
    if (m.contains("function_ids")) {
      const auto& ids = m["function_ids"];
      for (std::size_t i = 0; i < ids.size(); ++i)
        lanes.push_back(
            app::stored_lane(ctx.runs, ids[i].get<std::string>(), "mixers.function_ids[" + std::to_string(i) + "]"));
      spec.mixers_source = "function_ids";
    } else if (m.contains("run")) {
      const std::string run = m["run"].get<std::string>();
      lanes = app::family_lanes(ctx.runs, run, "mixers.run");
      spec.mixers_source = "run " + run;
    } else {
      const auto& programs = m.at("programs");
      for (std::size_t i = 0; i < programs.size(); ++i) {
        const std::string field = "mixers.programs[" + std::to_string(i) + "]";
        const mixer::Program p = app::program_from_value(programs[i], {32, 64, field, "mixers"});
        app::check_lane_width(p, field);
        lanes.push_back({p, -1, false});
      }
      spec.mixers_source = "programs";
    }
  } catch (const app::StoredNotFound& e) {
    throw not_stored(e);
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
  // The bake's rules (app/bake.hpp) under this server's caps.
  app::BakeRequest request;
  request.sampler = body.value("sampler", request.sampler);
  request.settings = {body.value("spp", request.settings.spp), body.value("bounces", request.settings.bounces),
                      std::nullopt};
  if (body.contains("texel")) request.settings.texel = body["texel"].get<double>();
  request.seed = body.value("seed", request.seed);
  request.backend = body.value("backend", request.backend);
  request.light_sampling = body.value("light_sampling", request.light_sampling);
  request.two_sided = body.value("two_sided", false);
  if (body.contains("mixers")) request.mixers_field = "mixers";
  spec.plan = app::plan_bake(request, app::BakePolicy{limits.max_spp, limits.max_bounces});
  spec.texel = request.settings.texel.value_or(0.0);  // as given: a reference bake is matched by it
  spec.reference = body.value("reference", std::string());
  if (body.contains("mixers")) read_mixers(ctx, body["mixers"], spec);
  echo["sampler"] = request.sampler;
  echo["spp"] = spec.plan.spp;
  echo["bounces"] = spec.plan.bounces;
  echo["seed"] = spec.plan.seed;
  echo["backend"] = spec.plan.backend;
  echo["light_sampling"] = request.light_sampling;
  echo["two_sided"] = spec.plan.two_sided;
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
    router.add(
        "GET", base + "/{id}/" + name,
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
