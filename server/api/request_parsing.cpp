#include "server/api/request_parsing.hpp"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "server/http/problem.hpp"
#include "app/evaluate.hpp"
#include "app/program_input.hpp"
#include "app/run_creation.hpp"
#include "server/api/schema_validator.hpp"

namespace mixforge::server {

namespace {
bool blank(const std::string& s) { return s.find_first_not_of(" \t\r\n") == std::string::npos; }
}  // namespace

evolver::RunConfig parse_run_request(const Request& request, const SchemaSet& schemas) {
  const nlohmann::json body = parse_json_body(request);
  schemas.validate("run.schema.json", body);
  // The use case's rules under the daemon's policy (app/run_creation.hpp: no default budget).
  return app::plan_run({body, std::nullopt}, app::daemon_run_policy());
}

std::optional<evolver::Budget> parse_resume_request(const Request& request, const SchemaSet& schemas) {
  if (blank(request.body)) return std::nullopt;
  const nlohmann::json body = parse_json_body(request);
  schemas.validate("resume_request.schema.json", body);
  if (!body.contains("budget") || body["budget"].is_null()) return std::nullopt;
  evolver::Budget b;
  const auto& jb = body["budget"];
  if (jb.contains("seconds") && !jb["seconds"].is_null()) b.seconds = jb["seconds"].get<double>();
  if (jb.contains("tournaments") && !jb["tournaments"].is_null())
    b.tournaments = jb["tournaments"].get<std::uint64_t>();
  return b;
}

EvaluationPlan parse_evaluate_request(const Request& request, const SchemaSet& schemas, const ApiLimits& limits) {
  const nlohmann::json body = parse_json_body(request);
  schemas.validate("evaluate_request.schema.json", body);
  std::optional<int> width;
  if (body.contains("width")) width = body["width"].get<int>();
  app::EvaluateRequest r;
  r.program = app::program_from_value(body["program"], {width});
  if (body.contains("exact")) r.exact = body["exact"].get<bool>();
  if (body.contains("samples")) r.samples = body["samples"].get<std::uint64_t>();
  if (body.contains("seed")) {
    try {
      r.seed = evolver::seed_from_json(body["seed"], "seed");
    } catch (const evolver::ConfigError& e) {
      // The evolver's rule (one seed parser for runs and /evaluate), this route's problem type.
      throw HttpError(422, "schema-violation", e.what()).with_field("/seed");
    }
  }
  // The use case's rules under the daemon's policy (app/evaluate.hpp says how it differs).
  EvaluationPlan plan;
  plan.scoring = app::plan_evaluation(r, app::daemon_policy(limits.max_exact_width, limits.max_samples));
  plan.program = std::move(r.program);
  plan.matrix = body.value("matrix", true);
  plan.costly = plan.scoring.exact && plan.program.width() >= limits.queue_exact_from_width;
  return plan;
}

}  // namespace mixforge::server
