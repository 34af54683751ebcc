// GET /api/v1/functions/{id}/quality[?size=quick|standard&refresh=true&rrc=true&rrc_cap_log2=N]: a stored
// function's quality report (avalanche/quality/quality.hpp), computed on demand and cached in the
// store. The cheap part runs on the read lane (it looks the function and the cached report
// up): a cached report is answered there and takes no scoring slot. Otherwise the report
// is admitted to the evaluation queue like POST /evaluate (429 when it is full; wide
// functions may wait in its bounded queue) and computed on its threads: about a minute
// for a 32-bit function at the standard size, most of it dieharder. Requests for a report
// that is being computed wait for that computation (evolver::SharedComputations).
#include <climits>

#include <nlohmann/json.hpp>

#include "app/quality.hpp"
#include "app/request_error.hpp"
#include "avalanche/counts.hpp"
#include "avalanche/evaluator.hpp"
#include "avalanche/quality/quality.hpp"
#include "evolver/manager/quality_cache.hpp"
#include "evolver/manager/run_manager.hpp"
#include "server/api/api.hpp"
#include "server/http/evaluation_queue.hpp"
#include "server/http/metrics.hpp"
#include "server/http/problem.hpp"
#include "server/http/query.hpp"

namespace mixforge::server {

namespace {

ScoringJob quality(ApiContext& ctx, const Request& req) {
  QueryReader q(req, {"size", "refresh", "rrc", "rrc_cap_log2"});
  app::QualityRequest r;
  r.size = q.string("size").value_or("standard");
  r.refresh = q.boolean("refresh").value_or(false);
  r.rrc = q.boolean("rrc").value_or(false);
  // Any int here: the range is the use case's rule (app/quality.hpp).
  if (const auto cap = q.integer("rrc_cap_log2", INT32_MIN, INT32_MAX)) r.rrc_cap_log2 = static_cast<int>(*cap);
  const app::QualityPolicy policy = app::daemon_quality_policy(ctx.limits.queue_exact_from_width);
  app::QualityPlan plan;
  try {
    plan = app::plan_quality(r, policy);  // the use case's rules (app/quality.hpp), before the lookup
  } catch (const app::RequestError& e) {
    throw query_parameter_error(e);
  }
  const avalanche::QualityOptions options = plan.options;
  const bool refresh = plan.refresh;
  const std::string& id = function_id_param(req);
  const auto f = ctx.runs.function(id);
  if (!f) throw HttpError(404, "function-not-found", "no function with id " + id);
  try {
    app::check_quality_width(plan, f->program.width());
  } catch (const app::RequestError& e) {
    throw query_parameter_error(e);
  }
  ScoringJob job;
  if (!refresh) {
    if (auto cached = evolver::cached_quality_report(ctx.runs, id, avalanche::quality_cache_key(options))) {
      job.answer = Response::json(200, *cached);
      return job;
    }
  }
  // Wide functions (exact avalanche over 2^24 or more inputs, dieharder at 32 bits and up)
  // may wait for a slot, like exact evaluations of the same width.
  job.costly = app::quality_is_costly(f->program.width(), plan, policy);
  job.run = [&ctx, program = f->program, options, refresh, cancel = req.client_gone]() -> Response {
    try {
      // Looks again unless told to refresh: another request may have made it meanwhile.
      return Response::json(200, evolver::stored_function_quality(ctx.runs, ctx.evaluator, program, options, refresh,
                                                                  cancel.get(), &ctx.quality_reports));
    } catch (const avalanche::EvaluationCancelled&) {
      throw_cancelled(ctx, "quality report");
    }
  };
  return job;
}

}  // namespace

void add_quality_routes(Router& router, ApiContext& ctx) {
  router.add_scoring(
      "GET", "/api/v1/functions/{id}/quality", [&ctx](const Request& r) { return quality(ctx, r); }, Exec::read);
}

}  // namespace mixforge::server
