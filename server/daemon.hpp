#pragma once
// `mixforge serve`: the whole daemon — run manager over the data directory, the REST API,
// the HTTP server — with startup checks (token on non-loopback binds), the default run
// on first start, resuming runs after a restart, and a clean shutdown on SIGTERM/SIGINT
// (stop accepting, checkpoint every run, exit 0).
#include <filesystem>
#include <iosfwd>
#include <optional>
#include <stdexcept>
#include <string>

#include "server/api.hpp"

namespace mixforge::server {

struct DaemonOptions {
  std::string bind = "127.0.0.1";
  unsigned short port = 8080;
  std::filesystem::path data_dir = "mixforge-data";
  std::optional<std::filesystem::path> token_file;
  std::optional<std::filesystem::path> port_file;  // the bound port is written here
  std::filesystem::path web_dir;                   // static dashboard files
  ApiLimits limits;
  unsigned io_threads = 2;
  unsigned worker_threads = 6;
  bool default_run = true;          // start one run on first start with an empty data dir
  bool interpreter_only = false;    // score with the reference interpreter (tests)
  double checkpoint_interval_s = 5;
};

// A configuration the daemon refuses to start with (exit 2).
class DaemonConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Runs until SIGTERM/SIGINT; returns the exit code. Logs to `log`.
int run_daemon(const DaemonOptions& options, std::ostream& log);

// The dashboard folder used when none is given: next to the installed binary
// (../share/mixforge/web), else the source tree's web/.
std::filesystem::path default_web_dir();

}  // namespace mixforge::server
