#pragma once
// `mixforge serve`: the whole daemon — run manager over the data directory, the REST API,
// the HTTP server — set up in separate steps (security, store, resumed runs, routes and
// policies, listening) and ended by one shutdown path (stop accepting, cancel in-flight
// scoring at its next checkpoint, checkpoint every run, flush the log, exit 0).
#include <atomic>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "avalanche/gpu/device.hpp"
#include "server/api/api.hpp"
#include "server/jobs/bake_limits.hpp"
#include "server/http/logging.hpp"

namespace mixforge::evolver { class RunManager; }

namespace mixforge::server {

struct DaemonOptions {
  std::string bind = "127.0.0.1";
  unsigned short port = 8080;
  std::filesystem::path data_dir = "mixforge-data";
  std::optional<std::filesystem::path> token_file;
  std::optional<std::filesystem::path> port_file;  // the bound port is written here
  std::filesystem::path web_dir;                   // static dashboard files
  ApiLimits limits;
  BakeLimits bakes;
  unsigned io_threads = 2;
  unsigned read_threads = 2;     // store reads (pool, best, hall of fame, runs, metrics)
  unsigned control_threads = 2;  // run control and export; never shared with scoring
  bool default_run = true;          // start one run on first start with an empty data dir
  bool interpreter_only = false;    // score without the JIT: the interpreter hashes (tests)
  avalanche::Device device = avalanche::Device::cpu;  // --device: cpu, gpu (required) or automatic
  double checkpoint_interval_s = 5;
  std::vector<std::string> allowed_hosts;  // Host names answered besides localhost / the bind address
  std::vector<std::string> cors_origins;   // cross origins allowed (CORS off when empty)
  double sse_keepalive_s = 15;
  double sse_write_timeout_s = 10;
  LogOptions log;                    // log.file relative: inside data_dir
  // Test hook: runs on a scoring thread before each admitted evaluation scores.
  std::function<void(const std::atomic<bool>& cancelled)> before_scoring;
};

// A configuration the daemon refuses to start with (exit 2).
class DaemonConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Daemon {
 public:
  // Every set-up step; listening when it returns. Throws DaemonConfigError.
  explicit Daemon(DaemonOptions options);
  ~Daemon();
  Daemon(const Daemon&) = delete;
  Daemon& operator=(const Daemon&) = delete;

  unsigned short port() const;
  // Serves until SIGTERM/SIGINT or stop(), then shuts down; returns the exit code.
  int run();
  void stop();  // thread-safe
  // After run(): a lane job did not end within the shutdown bound (the process should
  // exit without waiting for it; everything that matters is in the store).
  bool left_work_behind() const;
  // Its run manager (serve --islands drives the other ranks' islands of its runs).
  evolver::RunManager& manager();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Daemon(options).run(), exiting at once when work was left behind.
int run_daemon(const DaemonOptions& options);

// The dashboard folder used when none is given: next to the installed binary
// (../share/mixforge/web), else the source tree's web/.
std::filesystem::path default_web_dir();

}  // namespace mixforge::server
