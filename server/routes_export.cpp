// Shader export: GET /api/v1/functions/{id}/export?target=... (the code as text) and
// POST /api/v1/export (JSON in and out). Built on shader/export.hpp when this build has
// the shader module; otherwise both answer 501 saying so.
#include <algorithm>

#include <nlohmann/json.hpp>

#include "evolver/manager/run_manager.hpp"
#include "server/api.hpp"
#include "server/problem.hpp"
#include "app/program_input.hpp"
#include "server/query.hpp"
#include "server/schema_validator.hpp"

#ifdef MIXFORGE_WITH_SHADER
#include "shader/bundle.hpp"
#include "shader/export.hpp"
#endif

namespace mixforge::server {

#ifdef MIXFORGE_WITH_SHADER
bool export_available() { return true; }

namespace {
shader::Target parse_target(const std::string& name, const std::string& field) {
  auto t = shader::target_from_name(name);
  if (!t)
    // A query parameter is 400; a body field that is not a target is 422 (like any value the schema refuses).
    throw HttpError(field.rfind("?", 0) == 0 ? 400 : 422, "unknown-export-target",
                    "\"" + name + "\" is not an export target (glsl, hlsl, wgsl, msl, cuda, cpp, bundle)")
        .with_field(field);
  return *t;
}

std::optional<shader::ProgramScore> score_of(const evolver::ScoredFunction& f) {
  shader::ProgramScore s;
  s.chi2 = f.chi2;
  s.bias = f.bias;
  s.exact = f.exact;
  s.samples = f.samples;
  return s;
}

Response get_export(ApiContext& ctx, const Request& req) {
  QueryReader q(req, {"target", "name", "inverse", "range", "constants"});
  const std::string& id = req.param("id");
  const auto target = q.string("target");
  if (!target)
    throw HttpError(400, "missing-query-parameter",
                    "query parameter target is required (glsl, hlsl, wgsl, msl, cuda, cpp, bundle)")
        .with_field("?target");
  shader::ExportRequest er;
  const bool bundle = *target == "bundle";
  if (!bundle) er.target = parse_target(*target, "?target");
  er.name = q.string("name").value_or("");
  er.inverse = q.boolean("inverse").value_or(false);
  if (auto r = q.string("range")) {
    if (*r == "jitter") er.range = shader::RangeMethod::jitter;
    else if (*r == "fraction") er.range = shader::RangeMethod::fraction;
    else
      throw HttpError(400, "invalid-query-parameter", "query parameter range: \"" + *r +
                                                          "\" is not jitter or fraction")
          .with_field("?range");
  }
  if (auto c = q.string("constants")) {
    if (*c == "hex") er.constants = shader::ConstantStyle::hex;
    else if (*c == "decimal") er.constants = shader::ConstantStyle::decimal;
    else
      throw HttpError(400, "invalid-query-parameter", "query parameter constants: \"" + *c +
                                                          "\" is not hex or decimal")
          .with_field("?constants");
  }
  auto f = id.size() == 16 ? ctx.runs.function(id) : std::nullopt;
  if (!f) throw HttpError(404, "function-not-found", "no function with id " + nlohmann::json(id).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  er.programs.push_back({f->program, score_of(*f)});
  try {
    if (bundle) return Response::json(200, shader::export_bundle(er));
    Response r = Response::text(200, shader::export_code(er));
    r.headers.emplace_back("X-Function-Name", shader::function_name(er));
    return r;
  } catch (const shader::ExportError& e) {
    // One function: its program is the path's id.
    const std::string& f = e.field();
    if (f.empty()) throw HttpError(422, "export-failed", e.what());
    throw HttpError(422, "export-failed", e.what()).with_field(f.rfind("programs", 0) == 0 ? "id" : "?" + f);
  }
}

Response post_export(ApiContext& ctx, const Request& req) {
  QueryReader q(req, {});
  const nlohmann::json body = parse_json_body(req);
  ctx.schemas.validate("export_request.schema.json", body);
  shader::ExportRequest er;
  const std::string target = body.at("target").get<std::string>();
  const bool bundle = target == "bundle";
  if (!bundle) er.target = parse_target(target, "/target");
  er.vec4 = body.value("vec4", false);
  er.seeded = body.value("seeded", false);
  er.inverse = body.value("inverse", false);
  er.name = body.value("name", std::string());
  if (body.contains("range") && !body["range"].is_null())
    er.range = body["range"] == "fraction" ? shader::RangeMethod::fraction : shader::RangeMethod::jitter;
  if (body.value("constants", std::string("hex")) == "decimal") er.constants = shader::ConstantStyle::decimal;
  const auto& programs = body.at("programs");
  for (std::size_t i = 0; i < programs.size(); ++i) {
    const auto& item = programs[i];
    const std::string at = "/programs/" + std::to_string(i);
    if (item.contains("function_id")) {
      const std::string fid = item["function_id"].get<std::string>();
      auto f = ctx.runs.function(fid);
      if (!f)
        throw HttpError(404, "function-not-found", "no function with id " + nlohmann::json(fid).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace))
            .with_field(at + "/function_id");
      er.programs.push_back({f->program, score_of(*f)});
    } else {
      std::optional<int> width;
      if (item.contains("width")) width = item["width"].get<int>();
      const std::string field = "programs[" + std::to_string(i) + "]";
      er.programs.push_back({app::program_from_value(item.at("program"), {width, 64, field + ".program", field + ".width"}),
                             std::nullopt});
    }
  }
  try {
    if (bundle) return Response::json(200, {{"target", "bundle"}, {"bundle", shader::export_bundle(er)}});
    const std::string code = shader::export_code(er);
    return Response::json(200, {{"target", target}, {"name", shader::function_name(er)}, {"code", code}});
  } catch (const shader::ExportError& e) {
    if (e.field().empty()) throw HttpError(422, "export-failed", e.what());
    throw HttpError(422, "export-failed", e.what()).with_field("/" + e.field());
  }
}
}  // namespace

void add_export_routes(Router& router, ApiContext& ctx) {
  router.add("GET", "/api/v1/functions/{id}/export", [&ctx](const Request& r) { return get_export(ctx, r); },
             Exec::read);
  router.add("POST", "/api/v1/export", [&ctx](const Request& r) { return post_export(ctx, r); }, Exec::control);
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
