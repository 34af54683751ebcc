#pragma once
// The REST API under /api/v1 (plus /openapi.json, /healthz, /metrics): the shared
// context of the handlers, the limits they enforce, and the functions that register
// each group of routes (server/routes_*.cpp).
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>

#include "avalanche/gpu/device.hpp"
#include "evolver/manager/quality_cache.hpp"
#include "server/http/response_cache.hpp"
#include "server/http/router.hpp"

namespace mixforge::avalanche {
class Evaluator;
}
namespace mixforge::evolver {
class RunManager;
}

namespace mixforge::server {

class EvaluationQueue;
class BakeJobs;
class EventHub;
class Metrics;
class SchemaSet;

// Every limit is documented in README ("Limits") and answered with 413 / 429.
struct ApiLimits {
  std::size_t max_body_bytes = 1u << 20;       // 413 beyond
  std::size_t max_concurrent_evaluations = 2;  // POST /evaluate scoring at once (429 beyond)
  std::size_t max_queued_exact = 8;            // exact evaluations waiting (429 beyond)
  int queue_exact_from_width = 24;             // exact evaluations this wide wait in the queue
  int max_exact_width = 32;                    // exact evaluation is 2^n inputs
  std::uint64_t max_samples = 1ull << 24;      // per sampled evaluation
  std::size_t max_active_runs = 4;             // running or paused runs (429 beyond)
  std::size_t max_sse_clients = 64;            // event-stream clients (429 beyond)
  std::size_t max_page = 1000;                 // items per pool / best / hall-of-fame page
  double page_cache_s = 0.25;                  // pool / best answers reused this long (0: off)
};

struct ApiContext {
  ApiContext(evolver::RunManager& runs, const avalanche::Evaluator& evaluator, EvaluationQueue& evaluations,
             EventHub& events, Metrics& metrics, const SchemaSet& schemas, ApiLimits limits)
      : runs(runs),
        evaluator(evaluator),
        evaluations(evaluations),
        events(events),
        metrics(metrics),
        schemas(schemas),
        limits(limits),
        pages(limits.page_cache_s) {}
  evolver::RunManager& runs;
  const avalanche::Evaluator& evaluator;
  EvaluationQueue& evaluations;
  EventHub& events;
  Metrics& metrics;
  const SchemaSet& schemas;
  ApiLimits limits;
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
  std::mutex admission;                         // serialises run creation / resumption against max_active_runs
  ResponseCache pages;                          // GET pool / best of runs
  BakeJobs* bakes = nullptr;                    // set when this build has the baker
  avalanche::DeviceSelection device;            // where scoring runs (/healthz, /metrics)
  evolver::SharedComputations quality_reports;  // one computation of a report at a time
};

// The {id} of a /functions/{id} path: 16 lowercase hex digits, else 404 function-not-found.
const std::string& function_id_param(const Request& request);

void add_run_routes(Router& router, ApiContext& context);
void add_note_routes(Router& router, ApiContext& context);
void add_function_routes(Router& router, ApiContext& context);
void add_quality_routes(Router& router, ApiContext& context);
void add_evaluate_routes(Router& router, ApiContext& context);
void add_export_routes(Router& router, ApiContext& context);
void add_meta_routes(Router& router, ApiContext& context);
void add_bake_routes(Router& router, ApiContext& context);
inline void add_api_routes(Router& router, ApiContext& context) {
  add_run_routes(router, context);
  add_function_routes(router, context);
  add_quality_routes(router, context);
  add_evaluate_routes(router, context);
  add_export_routes(router, context);
  add_meta_routes(router, context);
  add_bake_routes(router, context);
  add_note_routes(router, context);
}

// A scoring job stopped by its cancel flag (EvaluationCancelled): counts it and throws the
// answer, 503 when the server is shutting down, else 499 (the client went away). `what`
// names the work ("evaluation", "quality report").
[[noreturn]] void throw_cancelled(ApiContext& context, const std::string& what);

// Whether the export routes are backed by the shader exporters in this build.
bool export_available();
// Whether the bake routes are backed by the baker in this build (else they answer 501).
bool bakes_available();

}  // namespace mixforge::server
