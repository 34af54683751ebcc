#include "server/daemon.hpp"

#ifdef MIXFORGE_WITH_BAKER
#include "server/jobs/bake_jobs.hpp"
#endif

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "avalanche/evaluator.hpp"
#include "evolver/manager/run_manager.hpp"
#include "server/http/auth.hpp"
#include "server/http/evaluation_queue.hpp"
#include "server/http/event_stream.hpp"
#include "server/http/http_policy.hpp"
#include "server/http/http_server.hpp"
#include "server/http/metrics.hpp"
#include "server/http/problem.hpp"
#include "server/api/schema_validator.hpp"
#include "server/http/static_files.hpp"
#include "server/http/worker_pool.hpp"

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
using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
  return std::round(std::chrono::duration<double, std::milli>(Clock::now() - t0).count() * 10) / 10;
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

// The log file lives in the data directory unless given as an absolute path.
LogOptions log_options(const DaemonOptions& o) {
  LogOptions l = o.log;
  if (l.file && l.file->is_relative()) l.file = o.data_dir / *l.file;
  return l;
}

// How long the shutdown waits for lane jobs in all (a checkpointing stop, a store read).
constexpr double lane_drain_s = 1.0;
}  // namespace

struct Daemon::Impl {
  DaemonOptions o;
  std::unique_ptr<Log> log;
  std::optional<std::string> token;
  bool first_start = false;
  std::unique_ptr<evolver::RunManager> manager;
  avalanche::DeviceSelection device;  // before the evaluators: they share its GPU
  std::unique_ptr<avalanche::Evaluator> evaluator;
  std::uint64_t lifecycle_subscription = 0;
  SchemaSet schemas;
  Metrics metrics;
  std::unique_ptr<EvaluationQueue> evaluations;
  std::unique_ptr<EventHub> events;
  std::unique_ptr<ApiContext> ctx;
#ifdef MIXFORGE_WITH_BAKER
  std::unique_ptr<BakeJobs> bakes;
#endif
  Router router;
  std::unique_ptr<StaticFiles> web;
  std::unique_ptr<BearerAuth> auth;
  std::unique_ptr<HttpPolicy> policy;
  std::unique_ptr<WorkerPool> read_lane, control_lane;
  std::unique_ptr<HttpServer> server;
  bool left_behind = false;

  // --- set-up steps, in order -----------------------------------------------------------

  // A first start: the data directory is missing or empty. Seen before anything is written
  // there: the token file may live in it (the container image keeps it in its data volume),
  // and creating it must not make a first start look like a restart.
  void note_first_start() {
    std::error_code ec;
    first_start = !fs::exists(o.data_dir, ec) || fs::is_empty(o.data_dir, ec);
  }

  // Nothing is opened before the bind address is acceptable.
  void check_security() {
    if (!is_loopback_address(o.bind) && !o.token_file)
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
  }

  void open_store() {
    std::error_code ec;
    fs::create_directories(o.data_dir, ec);
    if (ec) throw DaemonConfigError("cannot create data directory " + o.data_dir.string() + ": " + ec.message());
    try {
      log = std::make_unique<Log>(log_options(o));
    } catch (const std::exception& e) {
      throw DaemonConfigError(e.what());
    }
    try {
      device = avalanche::select_device(o.interpreter_only ? avalanche::Device::cpu : o.device);
    } catch (const std::exception& e) {
      throw DaemonConfigError(e.what());
    }
    if (!device.note.empty()) log->info("device.cpu", {{"why_not_gpu", device.note}});
    else log->info("device", {{"kind", device.kind}, {"name", device.name}});
    // auto: the run manager's evaluator and the daemon's share this record, so the first
    // GPU failure of either is written once. The log outlives both.
    if (device.fallback)
      device.fallback->on_fall_back([log = log.get(), from = device.name](const std::string& reason) {
        log->warn("device.fallback", {{"from", from}, {"to", "cpu"}, {"reason", reason}});
      });
    evolver::RunManager::Options mo;
    mo.data_dir = o.data_dir;
    mo.device = device;
    mo.interpreter_only = o.interpreter_only;
    mo.checkpoint_interval_s = o.checkpoint_interval_s;
    manager = std::make_unique<evolver::RunManager>(mo);
    evaluator =
        o.interpreter_only ? std::make_unique<avalanche::Evaluator>(nullptr) : avalanche::Evaluator::with_own_engine();
    evaluator->use_device(device);
    // Run lifecycle in the log: every state transition the manager publishes.
    lifecycle_subscription = manager->subscribe("", [this](const evolver::RunEvent& e) {
      if (e.type == evolver::RunEvent::Type::state)
        log->info("run.state", {{"run", e.run_id}, {"state", std::string(evolver::state_name(e.state))}});
    });
  }

  // Runs that were running when the last daemon ended (cleanly or not) continue (the
  // store marks them: runs.resume_on_start); an empty data directory gets the default run.
  void resume_runs() {
    for (const auto& r : manager->resume_interrupted()) {
      if (r.error.empty()) log->info("run.resumed", {{"run", r.run_id}});
      else log->error("run.resume_failed", {{"run", r.run_id}, {"error", r.error}});
    }
    if (first_start && o.default_run) {
      evolver::RunConfig config;  // 32-bit, 5 steps, default settings
      config.name = "default run (32-bit, 5 steps)";
      const std::string id = manager->create(config, true);
      log->info("run.default_started", {{"run", id}, {"width", 32}, {"max_steps", 5}});
    }
  }

  void build_routes() {
    evaluations = std::make_unique<EvaluationQueue>(o.limits.max_concurrent_evaluations, o.limits.max_queued_exact);
    if (o.before_scoring) evaluations->set_before_scoring(o.before_scoring);
    events = std::make_unique<EventHub>(*manager, o.limits.max_sse_clients);
    ctx = std::make_unique<ApiContext>(*manager, *evaluator, *evaluations, *events, metrics, schemas, o.limits);
    ctx->device = device;
#ifdef MIXFORGE_WITH_BAKER
    try {
      bakes = std::make_unique<BakeJobs>(o.data_dir / "bakes", o.bakes, *evaluator);
    } catch (const std::exception& e) {
      throw DaemonConfigError(e.what());
    }
    ctx->bakes = bakes.get();
#endif
    add_api_routes(router, *ctx);
    web = std::make_unique<StaticFiles>(o.web_dir.empty() ? default_web_dir() : o.web_dir);
    router.set_fallback([w = web.get()](const Request& r) { return w->serve(r); });
  }

  // Host (421), Origin and Content-Type (403, 415), then the bearer token (401).
  void install_policies() {
    policy = std::make_unique<HttpPolicy>(HttpPolicyOptions{o.bind, o.allowed_hosts, o.cors_origins});
    auth = std::make_unique<BearerAuth>(token);
    router.set_precheck([p = policy.get()](const Request& r) { return p->check_host(r); });
    router.set_guard([p = policy.get(), a = auth.get()](const Request& r, const Route& route) -> std::optional<Response> {
      if (auto refused = p->check_request(r, route)) return refused;
      if (!a->enabled() || !route.mutating() || a->check(r.header("authorization"))) return std::nullopt;
      Response res = problem_response(401, "unauthorized",
                                      "this endpoint needs an Authorization: Bearer <token> header "
                                      "(the token is in the server's --token-file)",
                                      nlohmann::json::object(), r.path);
      res.headers.emplace_back("WWW-Authenticate", "Bearer realm=\"mixforge\"");
      return res;
    });
  }

  void listen() {
    read_lane = std::make_unique<WorkerPool>(std::max(1u, o.read_threads));
    control_lane = std::make_unique<WorkerPool>(std::max(1u, o.control_threads));
    HttpServerOptions so;
    so.bind = o.bind;
    so.port = o.port;
    so.io_threads = o.io_threads;
    so.max_body_bytes = o.limits.max_body_bytes;
    so.sse_keepalive_s = o.sse_keepalive_s;
    so.sse_write_timeout_s = o.sse_write_timeout_s;
    server = std::make_unique<HttpServer>(so, router, Lanes{*read_lane, *control_lane, *evaluations}, metrics,
                                          *log, policy.get());
    // First step of the shutdown, on an I/O thread as soon as the signal arrives.
    server->on_stop([this] {
      events->shutdown();
#ifdef MIXFORGE_WITH_BAKER
      if (bakes) bakes->shutdown();  // cancels the running bake; queued ones come back as interrupted
#endif
      evaluations->close();  // refuses new scoring, cancels the running counts
    });
    const unsigned short port = server->port();
    if (o.port_file) write_port_file(*o.port_file, port);
    const std::string host = o.bind.find(':') != std::string::npos ? "[" + o.bind + "]" : o.bind;
    log->info("listening", {{"url", "http://" + host + ":" + std::to_string(port) + "/"},
                            {"data", o.data_dir.string()},
                            {"scoring", evaluator->uses_jit() ? "JIT" : "interpreter"},
                            {"token_required", auth->enabled()}});
  }

  // --- the one shutdown path ----------------------------------------------------------

  void shutdown(int sig) {
    const auto t0 = Clock::now();
    log->info("shutdown", {{"cause", sig ? (sig == SIGTERM ? "SIGTERM" : "SIGINT") : "stop"}});
    // Every active run checkpoints, all at once; running runs stay marked to resume on
    // the next start.
    try {
      manager->shutdown();
    } catch (const std::exception& e) {
      log->error("runs_checkpoint_failed", {{"error", e.what()}});
    }
    log->info("runs_checkpointed", {{"ms", ms_since(t0)}});
    // Scoring was cancelled at its next checkpoint; lane jobs get a short bound.
    const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                             std::chrono::duration<double>(lane_drain_s));
    auto left = [&] { return std::max(0.0, std::chrono::duration<double>(deadline - Clock::now()).count()); };
    const bool drained = evaluations->drain(left()) && read_lane->drain(left()) && control_lane->drain(left());
    if (!drained) {
      left_behind = true;
      log->warn("shutdown_left_work", {{"detail", "unfinished requests are not waited for"}});
    }
    if (lifecycle_subscription) manager->unsubscribe(lifecycle_subscription);
    lifecycle_subscription = 0;
    log->info("exit", {{"ms", ms_since(t0)}});
    log->flush();
  }

  ~Impl() {
    if (manager && lifecycle_subscription) manager->unsubscribe(lifecycle_subscription);
    server.reset();
    read_lane.reset();
    control_lane.reset();
#ifdef MIXFORGE_WITH_BAKER
    bakes.reset();  // joins the bake threads (they use the evaluator)
#endif
    evaluations.reset();
    ctx.reset();
    events.reset();
  }
};

Daemon::Daemon(DaemonOptions options) : impl_(std::make_unique<Impl>()) {
  impl_->o = std::move(options);
  impl_->note_first_start();
  impl_->check_security();
  impl_->open_store();
  impl_->resume_runs();
  impl_->build_routes();
  impl_->install_policies();
  impl_->listen();
}

Daemon::~Daemon() {
  if (impl_ && impl_->left_behind) (void)impl_.release();  // threads still use it; the process is ending
}

unsigned short Daemon::port() const { return impl_->server->port(); }

int Daemon::run() {
  const int sig = impl_->server->run();
  impl_->shutdown(sig);
  return 0;
}

void Daemon::stop() { impl_->server->stop(); }

bool Daemon::left_work_behind() const { return impl_->left_behind; }

evolver::RunManager& Daemon::manager() { return *impl_->manager; }

int run_daemon(const DaemonOptions& options) {
  Daemon daemon(options);
  const int rc = daemon.run();
  if (daemon.left_work_behind()) std::_Exit(rc);
  return rc;
}

}  // namespace mixforge::server
