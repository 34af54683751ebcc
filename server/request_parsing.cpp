#include "server/request_parsing.hpp"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "server/problem.hpp"
#include "server/program_input.hpp"
#include "server/schema_validator.hpp"

namespace mixforge::server {

namespace {
// Without an explicit choice: exact up to this width, else default_samples.
constexpr int default_exact_max_width = 20;
constexpr std::uint64_t default_samples = 1u << 20;

bool blank(const std::string& s) { return s.find_first_not_of(" \t\r\n") == std::string::npos; }
}  // namespace

evolver::RunConfig parse_run_request(const Request& request, const SchemaSet& schemas) {
  const nlohmann::json body = parse_json_body(request);
  schemas.validate("run.schema.json", body);
  return evolver::run_config_from_json(body);
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
  EvaluationPlan plan;
  plan.program = program_from_request(body["program"], "/program", width, "/width");
  const int n = plan.program.width();
  const bool has_exact = body.contains("exact");
  const bool has_samples = body.contains("samples");
  plan.exact = has_exact ? body["exact"].get<bool>() : (!has_samples && n <= default_exact_max_width);
  if (has_exact && plan.exact && has_samples)
    throw HttpError(422, "conflicting-fields", "give either \"exact\": true or \"samples\", not both")
        .with_field("/samples");
  plan.samples = has_samples ? body["samples"].get<std::uint64_t>() : default_samples;
  if (body.contains("seed")) {
    try {
      plan.seed = evolver::seed_from_json(body["seed"], "seed");
    } catch (const evolver::ConfigError& e) {
      // The evolver's rule (one seed parser for runs and /evaluate), this route's problem type.
      throw HttpError(422, "schema-violation", e.what()).with_field("/seed");
    }
  }
  plan.matrix = body.value("matrix", true);
  const int exact_limit = std::min(32, limits.max_exact_width);
  if (plan.exact && n > exact_limit)
    throw HttpError(422, "evaluation-too-costly",
                    "exact evaluation of a " + std::to_string(n) + "-bit program is over the limit of " +
                        std::to_string(exact_limit) + " bits on this server; ask for \"samples\" instead")
        .with_field("/exact");
  if (!plan.exact && plan.samples > limits.max_samples)
    throw HttpError(422, "evaluation-too-costly",
                    std::to_string(plan.samples) + " samples is over the limit of " +
                        std::to_string(limits.max_samples) + " per evaluation")
        .with_field("/samples");
  plan.costly = plan.exact && n >= limits.queue_exact_from_width;
  return plan;
}

}  // namespace mixforge::server
