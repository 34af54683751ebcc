#include "server/daemon.hpp"

#include <unistd.h>

#include <chrono>
#include <csignal>
#include <thread>
#include <vector>
#include <cstdlib>
#include <fstream>
#include <ostream>

#include <nlohmann/json.hpp>

#include "avalanche/evaluator.hpp"
#include "evolver/run_manager.hpp"
#include "server/auth.hpp"
#include "server/evaluation_queue.hpp"
#include "server/event_stream.hpp"
#include "server/http_server.hpp"
#include "server/metrics.hpp"
#include "server/problem.hpp"
#include "server/schema_validator.hpp"
#include "server/static_files.hpp"

namespace mixforge::server {

namespace fs = std::filesystem;

fs::path default_web_dir() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path installed = exe.parent_path().parent_path() / "share" / "mixforge" / "web";
    if (fs::is_directory(installed, ec)) return installed;
  }
#ifdef MIXFORGE_SOURCE_WEB_DIR
  return MIXFORGE_SOURCE_WEB_DIR;
#else
  return "web";
#endif
}

namespace {
double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void write_port_file(const fs::path& file, unsigned short port) {
  const fs::path tmp = file.string() + ".tmp";
  {
    std::ofstream out(tmp);
    out << port << "\n";
    if (!out) throw std::runtime_error("cannot write port file " + tmp.string());
  }
  fs::rename(tmp, file);
}
}  // namespace

int run_daemon(const DaemonOptions& o, std::ostream& log) {
  // Security first: nothing is opened before the bind address is acceptable.
  std::optional<std::string> token;
  const bool loopback = is_loopback_address(o.bind);
  if (!loopback && !o.token_file)
    throw DaemonConfigError("refusing to listen on " + o.bind +
                            " (not a loopback address) without a token: pass --token-file FILE "
                            "(created with a fresh token when missing)");
  if (o.token_file) {
    try {
      token = load_or_create_token(*o.token_file);
    } catch (const std::exception& e) {
      throw DaemonConfigError(e.what());
    }
  }

  std::error_code ec;
  const bool first_start = !fs::exists(o.data_dir, ec) || fs::is_empty(o.data_dir, ec);
  fs::create_directories(o.data_dir, ec);
  if (ec) throw DaemonConfigError("cannot create data directory " + o.data_dir.string() + ": " + ec.message());

  evolver::RunManager::Options mo;
  mo.data_dir = o.data_dir;
  mo.interpreter_only = o.interpreter_only;
  mo.checkpoint_interval_s = o.checkpoint_interval_s;
  auto manager = std::make_unique<evolver::RunManager>(mo);
  std::unique_ptr<Evaluator> evaluator =
      o.interpreter_only ? std::make_unique<Evaluator>(nullptr) : Evaluator::with_own_engine();

  // Runs that were running when the last daemon ended (cleanly or not) continue: the
  // store marks them (runs.resume_on_start).
  for (const auto& r : manager->resume_interrupted())
    log << "mixforge: " << (r.error.empty() ? "resumed run " + r.run_id : "could not resume run " + r.run_id + ": " + r.error) << "\n";
  if (first_start && o.default_run) {
    evolver::RunConfig config;  // 32-bit, 5 steps, default settings
    config.name = "default run (32-bit, 5 steps)";
    const std::string id = manager->create(config, true);
    log << "mixforge: empty data directory: started run " << id << " (32-bit, at most 5 steps)\n";
  }

  SchemaSet schemas;
  Metrics metrics;
  EvaluationQueue evaluations(o.limits.max_concurrent_evaluations, o.limits.max_queued_exact);
  EventHub events(*manager, o.limits.max_sse_clients);
  ApiContext ctx{*manager, *evaluator, evaluations, events, metrics, schemas, o.limits};

  Router router;
  add_api_routes(router, ctx);
  StaticFiles web(o.web_dir.empty() ? default_web_dir() : o.web_dir);
  router.set_fallback([&web](const Request& r) { return web.serve(r); });
  BearerAuth auth(token);
  router.set_guard([&auth](const Request& r, const Route& route) -> std::optional<Response> {
    if (!auth.enabled() || !route.mutating() || auth.check(r.header("authorization"))) return std::nullopt;
    Response res = problem_response(401, "unauthorized",
                                    "this endpoint needs an Authorization: Bearer <token> header "
                                    "(the token is in the server's --token-file)",
                                    nlohmann::json::object(), r.path);
    res.headers.emplace_back("WWW-Authenticate", "Bearer realm=\"mixforge\"");
    return res;
  });

  auto workers = std::make_unique<WorkerPool>(o.worker_threads);
  HttpServerOptions so;
  so.bind = o.bind;
  so.port = o.port;
  so.io_threads = o.io_threads;
  so.max_body_bytes = o.limits.max_body_bytes;
  auto server = std::make_unique<HttpServer>(so, router, *workers, metrics);
  server->on_stop([&] {
    events.shutdown();
    evaluations.close();
  });
  const unsigned short port = server->port();
  if (o.port_file) write_port_file(*o.port_file, port);
  log << "mixforge: listening on http://" << (o.bind.find(':') != std::string::npos ? "[" + o.bind + "]" : o.bind)
      << ":" << port << "/ (data " << o.data_dir.string() << ", " << (evaluator->uses_jit() ? "JIT" : "interpreter")
      << (auth.enabled() ? ", bearer token required for changes" : "") << ")\n"
      << std::flush;

  const int sig = server->run();
  const double t0 = now_s();
  log << "mixforge: " << (sig ? (sig == SIGTERM ? "SIGTERM" : "SIGINT") : "stop")
      << ": checkpointing runs\n" << std::flush;
  // Final checkpoint of every active run, all at once; running runs stay marked to
  // resume on the next start.
  manager->shutdown();
  log << "mixforge: runs checkpointed in " << static_cast<int>((now_s() - t0) * 1000) << " ms\n" << std::flush;
  // Answers still being computed (an exact 32-bit evaluation takes seconds) are not worth
  // delaying the exit: everything that matters is in the store.
  if (!workers->drain(1.0)) {
    log << "mixforge: leaving unfinished evaluations behind\n" << std::flush;
    std::_Exit(0);
  }
  workers.reset();
  server.reset();
  return 0;
}

}  // namespace mixforge::server
