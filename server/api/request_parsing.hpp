#pragma once
// Turning request bodies into values: JSON syntax, schema, then semantic checks, each
// failure an HttpError naming the field. Shared by the handlers and the request fuzzer.
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "evolver/search/run_config.hpp"
#include "app/evaluate.hpp"
#include "mixer/program.hpp"
#include "server/api/api.hpp"
#include "server/http/http_types.hpp"

namespace mixforge::server {

class SchemaSet;

// POST /runs: throws HttpError (400/415/422 schema) or app::RequestError (the use case's
// rules, app/run_creation.hpp).
evolver::RunConfig parse_run_request(const Request& request, const SchemaSet& schemas);

// POST /runs/{id}/resume: an optional body {"budget": {...}}.
std::optional<evolver::Budget> parse_resume_request(const Request& request, const SchemaSet& schemas);

struct EvaluationPlan {
  mixer::Program program;
  app::EvaluationPlan scoring;  // the use case's plan (app/evaluate.hpp)
  bool matrix = true;
  bool costly = false;  // waits in the exact queue
};
// POST /evaluate, with the cost limits applied (422 naming /exact or /samples).
EvaluationPlan parse_evaluate_request(const Request& request, const SchemaSet& schemas, const ApiLimits& limits);

}  // namespace mixforge::server
