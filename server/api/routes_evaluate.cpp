// POST /api/v1/evaluate: score one program (exact or sampled) with its avalanche matrix.
// Cost limits: sample counts are capped; admission happens before any thread is taken
// (server/http/evaluation_queue.hpp): exact evaluations of wide programs wait in a bounded
// queue and are dropped unscored when their client goes away; beyond it 429. A running
// exact count stops between tiles once its client has gone
// (mixforge_evaluations_cancelled_total) or the server shuts down.
#include <chrono>

#include <nlohmann/json.hpp>

#include "avalanche/stats/chi_square.hpp"
#include "avalanche/evaluator.hpp"
#include "evolver/search/run_config.hpp"
#include "mixer/json_form.hpp"
#include "mixer/text_form.hpp"
#include "server/api/api.hpp"
#include "server/http/evaluation_queue.hpp"
#include "server/http/metrics.hpp"
#include "server/http/problem.hpp"
#include "server/api/request_parsing.hpp"
#include "server/http/query.hpp"
#include "server/api/schema_validator.hpp"

namespace mixforge::server {

namespace {
// The cheap part runs on the I/O thread (parse, validate, cost limits); the scoring runs
// once the evaluation queue admits it. The job holds no reference to the request.
ScoringJob evaluate(ApiContext& ctx, const Request& req) {
  QueryReader q(req, {});
  auto plan = std::make_shared<const EvaluationPlan>(parse_evaluate_request(req, ctx.schemas, ctx.limits));
  ScoringJob job;
  job.costly = plan->costly;
  job.run = [&ctx, plan, cancel = req.client_gone, queued_at = std::chrono::steady_clock::now()]() -> Response {
    const mixer::Program& program = plan->program;
    const int n = program.width();
    const bool exact = plan->scoring.exact;
    const std::uint64_t seed = plan->scoring.seed;
    const auto started = std::chrono::steady_clock::now();
    avalanche::ScoredCounts scored;
    try {
      // An exact count stops between tiles once the client has gone away (or the
      // server shuts down: the same flag).
      scored = app::evaluate(ctx.evaluator, program, plan->scoring, cancel.get());
    } catch (const avalanche::EvaluationCancelled&) {
      throw_cancelled(ctx, "evaluation");
    }
    const auto done = std::chrono::steady_clock::now();
    const avalanche::AvalancheCounts& counts = scored.counts;
    const avalanche::Score& s = scored.score;
    nlohmann::json out = {
        {"program",
         {{"id", program.id()},
          {"text", mixer::format_program(program)},
          {"short", mixer::format_short(program)},
          {"program", mixer::to_json(program)},
          {"width", n},
          {"steps", program.size()}}},
        {"score",
         {{"chi2", s.chi2},
          {"chi2_corrected", s.chi2_corrected},
          {"chi2_stderr", s.chi2_stderr},
          {"bias", s.bias},
          {"samples", s.samples},
          {"exact", s.exact}}},
        {"queued_s", std::chrono::duration<double>(started - queued_at).count()},
        {"elapsed_s", std::chrono::duration<double>(done - started).count()},
    };
    // Seeds beyond 2^53-1 travel as strings (JSON numbers are exact only that far).
    if (!exact) out["score"]["seed"] = evolver::seed_to_json(seed);
    if (plan->matrix) {
      const auto m = avalanche::avalanche_matrix(counts);
      nlohmann::json rows = nlohmann::json::array();
      for (int i = 0; i < n; ++i) {
        nlohmann::json row = nlohmann::json::array();
        for (int j = 0; j < n; ++j) row.push_back(m[static_cast<std::size_t>(i) * n + j]);
        rows.push_back(std::move(row));
      }
      out["matrix"] = std::move(rows);
    }
    return Response::json(200, out);
  };
  return job;
}
}  // namespace

void throw_cancelled(ApiContext& ctx, const std::string& what) {
  ctx.metrics.evaluation_cancelled();
  if (ctx.evaluations.closed())
    throw HttpError(503, "shutting-down", "the server is shutting down; the " + what + " was stopped")
        .with_header("Retry-After", "5");
  throw HttpError(499, "client-closed-request", "the client went away during its " + what + "; it was stopped");
}

void add_evaluate_routes(Router& router, ApiContext& ctx) {
  router.add_scoring("POST", "/api/v1/evaluate", [&ctx](const Request& r) { return evaluate(ctx, r); });
}

}  // namespace mixforge::server
