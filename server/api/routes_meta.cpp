// /healthz, /metrics (Prometheus text) and /openapi.json (also under /api/v1).
#include <chrono>

#include <nlohmann/json.hpp>

#include "avalanche/evaluator.hpp"
#include "evolver/manager/run_manager.hpp"
#include "server/api/api.hpp"
#include "server/api/embedded_schemas.hpp"
#include "server/http/evaluation_queue.hpp"
#include "server/http/event_stream.hpp"
#include "server/http/metrics.hpp"
#include "server/http/query.hpp"
#include "server/api/schema_validator.hpp"

namespace mixforge::server {

namespace {
Response healthz(ApiContext& ctx, const Request& req) {
  QueryReader q(req, {});
  std::size_t active = 0, total = 0;
  for (const auto& s : ctx.runs.list()) {
    ++total;
    if (ctx.runs.active(s.id)) ++active;
  }
  const double uptime = std::chrono::duration<double>(std::chrono::steady_clock::now() - ctx.started).count();
  return Response::json(200, {{"status", "ok"},
                              {"version", "0.1.0"},
                              {"uptime_s", uptime},
                              {"runs", total},
                              {"active_runs", active},
                              {"jit", ctx.evaluator.uses_jit()},
                              {"device", avalanche::device_json(ctx.device)},
                              {"export", export_available()}});
}

Response metrics(ApiContext& ctx, const Request& req) {
  QueryReader q(req, {});
  std::string out = ctx.metrics.render_http();
  // The device that scores now: the CPU once auto has given up a failed GPU.
  const nlohmann::json device = avalanche::device_json(ctx.device);
  out += metric_header("mixforge_device_info", "gauge", "The processor that scores (kind cpu or gpu) and its name.");
  out += "mixforge_device_info{kind=\"" + label_value(device["kind"].get<std::string>()) + "\",name=\"" +
         label_value(device["name"].get<std::string>()) + "\"} 1\n";
  const auto runs = ctx.runs.list();
  auto per_run = [&](const std::string& name, const std::string& type, const std::string& help, auto value) {
    out += metric_header(name, type, help);
    for (const auto& s : runs) {
      auto v = value(s);
      if (!v) continue;
      out += name + "{run=\"" + label_value(s.id) + "\",width=\"" + std::to_string(s.config.width) + "\"} " +
             format_metric_value(*v) + "\n";
    }
  };
  using S = evolver::RunSummary;
  using O = std::optional<double>;
  per_run("mixforge_run_tournaments_total", "counter", "Tournaments played by the run.",
          [](const S& s) -> O { return static_cast<double>(s.counters.tournaments); });
  per_run("mixforge_run_scored_total", "counter", "Programs scored by the run (early rejects included).",
          [](const S& s) -> O { return static_cast<double>(s.counters.scored); });
  per_run("mixforge_run_early_rejects_total", "counter", "Children dropped after a partial score.",
          [](const S& s) -> O { return static_cast<double>(s.counters.early_rejects); });
  per_run("mixforge_run_samples_total", "counter", "Inputs evaluated by the run's search.",
          [](const S& s) -> O { return static_cast<double>(s.counters.samples); });
  per_run("mixforge_run_exact_scored_total", "counter", "Exact scores computed by the leader ranking.",
          [](const S& s) -> O { return static_cast<double>(s.counters.exact_scored); });
  per_run("mixforge_run_elapsed_seconds", "counter", "Running time of the run, all sessions.",
          [](const S& s) -> O { return s.counters.elapsed_s; });
  per_run("mixforge_run_best_chi2", "gauge", "The run's best chi2 (exact where known).",
          [](const S& s) -> O { return s.best ? O(s.best->chi2) : std::nullopt; });
  per_run("mixforge_run_best_chi2_exact", "gauge", "The run's best exact chi2, when its best has one.",
          [](const S& s) -> O { return s.best && s.best->chi2_exact ? O(*s.best->chi2_exact) : std::nullopt; });
  out += metric_header("mixforge_run_active", "gauge", "1 while the run is running or paused in this process.");
  std::size_t active = 0;
  for (const auto& s : runs) {
    const bool a = ctx.runs.active(s.id);
    active += a;
    out += "mixforge_run_active{run=\"" + label_value(s.id) + "\",state=\"" +
           std::string(evolver::state_name(s.state)) + "\"} " + (a ? "1" : "0") + "\n";
  }
  out += metric_header("mixforge_runs_active", "gauge", "Runs active in this process.");
  out += "mixforge_runs_active " + std::to_string(active) + "\n";
  out += metric_header("mixforge_evaluations_running", "gauge", "POST /evaluate requests being scored.");
  out += "mixforge_evaluations_running " + std::to_string(ctx.evaluations.running()) + "\n";
  out += metric_header("mixforge_evaluations_queued", "gauge", "Exact evaluations waiting for a slot.");
  out += "mixforge_evaluations_queued " + std::to_string(ctx.evaluations.waiting()) + "\n";
  out += metric_header("mixforge_evaluations_cancelled_total", "counter",
                       "Exact evaluations stopped while scoring because the client went away.");
  out += "mixforge_evaluations_cancelled_total " + std::to_string(ctx.metrics.cancelled_evaluations()) + "\n";
  out += metric_header("mixforge_sse_clients", "gauge", "Connected event-stream clients.");
  out += "mixforge_sse_clients " + std::to_string(ctx.events.clients()) + "\n";
  out += metric_header("mixforge_sse_dropped_total", "counter",
                       "Event-stream clients dropped because they stopped reading (write timeout).");
  out += "mixforge_sse_dropped_total " + std::to_string(ctx.metrics.sse_dropped_total()) + "\n";
  out += metric_header("mixforge_limit", "gauge", "Configured limits.");
  out += "mixforge_limit{name=\"max_body_bytes\"} " + std::to_string(ctx.limits.max_body_bytes) + "\n";
  out += "mixforge_limit{name=\"max_concurrent_evaluations\"} " +
         std::to_string(ctx.limits.max_concurrent_evaluations) + "\n";
  out += "mixforge_limit{name=\"max_queued_exact\"} " + std::to_string(ctx.limits.max_queued_exact) + "\n";
  out += "mixforge_limit{name=\"max_active_runs\"} " + std::to_string(ctx.limits.max_active_runs) + "\n";
  out += "mixforge_limit{name=\"max_sse_clients\"} " + std::to_string(ctx.limits.max_sse_clients) + "\n";
  return Response::text(200, out, "text/plain; version=0.0.4; charset=utf-8");
}

// The bundled document's exact bytes (build/schema/openapi.json), so what clients and the
// linters see is one and the same document.
Response openapi(ApiContext& ctx, const Request& req) {
  QueryReader q(req, {});
  return Response::text(200, std::string(embedded_openapi()), "application/json");
}
}  // namespace

void add_meta_routes(Router& router, ApiContext& ctx) {
  // Both read every run from the store: the read lane, not an I/O thread.
  router.add(
      "GET", "/healthz", [&ctx](const Request& r) { return healthz(ctx, r); }, Exec::read);
  router.add(
      "GET", "/metrics", [&ctx](const Request& r) { return metrics(ctx, r); }, Exec::read);
  router.add("GET", "/openapi.json", [&ctx](const Request& r) { return openapi(ctx, r); });
  router.add("GET", "/api/v1/openapi.json", [&ctx](const Request& r) { return openapi(ctx, r); });
}

}  // namespace mixforge::server
