// Shader export: GET /api/v1/functions/{id}/export?target=... (the code as text) and
// POST /api/v1/export (JSON in and out). Built on shader/export.hpp when this build has
// the shader module; otherwise both answer 501 saying so.
#include <algorithm>

#include <nlohmann/json.hpp>

#include "evolver/manager/run_manager.hpp"
#include "app/program_input.hpp"
#include "app/request_error.hpp"
#include "server/api/api.hpp"
#include "server/http/problem.hpp"
#include "server/http/query.hpp"
#include "server/api/schema_validator.hpp"

#ifdef MIXFORGE_WITH_SHADER
#include "app/export.hpp"
#endif

namespace mixforge::server {

#ifdef MIXFORGE_WITH_SHADER
bool export_available() { return true; }

namespace {
// A GET's options are query parameters: a refusal is 400 naming "?field", and the one
// program is the path's id.
HttpError as_query_error(const app::RequestError& e) {
  const std::string& f = e.field();
  if (e.code() == "export-failed")  // the exporter refuses this function's export: 422, as any body's
    return HttpError(422, e.code(), e.what()).with_field(f.rfind("programs", 0) == 0 ? "id" : "?" + f);
  if (e.code() == "unknown-export-target") return HttpError(400, e.code(), e.what()).with_field("?" + f);
  return query_parameter_error(e);
}

Response get_export(ApiContext& ctx, const Request& req) {
  QueryReader q(req, {"target", "name", "inverse", "range", "constants"});
  const std::string& id = req.param("id");
  const auto target = q.string("target");
  if (!target)
    throw HttpError(400, "missing-query-parameter",
                    "query parameter target is required (glsl, hlsl, wgsl, msl, cuda, cpp, bundle)")
        .with_field("?target");
  app::ExportRequest er;
  er.target = *target;
  er.name = q.string("name").value_or("");
  er.inverse = q.boolean("inverse").value_or(false);
  er.range = q.string("range");
  er.constants = q.string("constants").value_or("hex");
  app::ExportResult out;
  try {
    app::check_export_options(er);  // 400 for a bad parameter before 404 for the function
    auto f = id.size() == 16 ? ctx.runs.function(id) : std::nullopt;
    if (!f)
      throw HttpError(404, "function-not-found",
                      "no function with id " +
                          nlohmann::json(id).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    er.programs.push_back(app::stored_source(*f));
    out = app::export_programs(std::move(er), app::daemon_export_policy());
  } catch (const app::RequestError& e) {
    throw as_query_error(e);
  }
  if (out.bundle) return Response::json(200, out.bundle_json);
  Response r = Response::text(200, out.code);
  r.headers.emplace_back("X-Function-Name", out.name);
  return r;
}

Response post_export(ApiContext& ctx, const Request& req) {
  QueryReader q(req, {});
  const nlohmann::json body = parse_json_body(req);
  ctx.schemas.validate("export_request.schema.json", body);
  app::ExportRequest er;
  er.target = body.at("target").get<std::string>();
  er.vec4 = body.value("vec4", false);
  er.seeded = body.value("seeded", false);
  er.inverse = body.value("inverse", false);
  er.name = body.value("name", std::string());
  if (body.contains("range") && !body["range"].is_null()) er.range = body["range"].get<std::string>();
  er.constants = body.value("constants", std::string("hex"));
  const auto& programs = body.at("programs");
  for (std::size_t i = 0; i < programs.size(); ++i) {
    const auto& item = programs[i];
    if (item.contains("function_id")) {
      const std::string fid = item["function_id"].get<std::string>();
      auto f = ctx.runs.function(fid);
      if (!f)
        throw HttpError(404, "function-not-found",
                        "no function with id " +
                            nlohmann::json(fid).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace))
            .with_field("/programs/" + std::to_string(i) + "/function_id");
      er.programs.push_back(app::stored_source(*f));
    } else {
      std::optional<int> width;
      if (item.contains("width")) width = item["width"].get<int>();
      const std::string field = "programs[" + std::to_string(i) + "]";
      er.programs.push_back(app::typed_source(
          app::program_from_value(item.at("program"), {width, 64, field + ".program", field + ".width"})));
    }
  }
  // The use case's rules under the daemon's policy (app/export.hpp); its RequestErrors are
  // 422 naming the field (the router).
  const app::ExportResult out = app::export_programs(std::move(er), app::daemon_export_policy());
  if (out.bundle) return Response::json(200, {{"target", "bundle"}, {"bundle", out.bundle_json}});
  return Response::json(200, {{"target", out.target}, {"name", out.name}, {"code", out.code}});
}
}  // namespace

void add_export_routes(Router& router, ApiContext& ctx) {
  router.add(
      "GET", "/api/v1/functions/{id}/export", [&ctx](const Request& r) { return get_export(ctx, r); }, Exec::read);
  router.add(
      "POST", "/api/v1/export", [&ctx](const Request& r) { return post_export(ctx, r); }, Exec::control);
}

#else
bool export_available() { return false; }

void add_export_routes(Router& router, ApiContext&) {
  auto not_built = [](const Request&) -> Response {
    throw HttpError(501, "export-not-available",
                    "shader export is not part of this build (the shader module is missing); "
                    "rebuild mixforge with shader/ to use /export");
  };
  router.add("GET", "/api/v1/functions/{id}/export", not_built);
  router.add("POST", "/api/v1/export", not_built);
}
#endif

}  // namespace mixforge::server
