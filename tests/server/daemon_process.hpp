#pragma once
// Starts the real `mixforge serve` on an ephemeral loopback port (--port 0 --port-file,
// tests/support/daemon.hpp) with a fresh data directory, and talks HTTP to it with cpp-httplib. Every response a
// client() receives is checked against the bundled OpenAPI document (tests/contract): an
// undocumented status, content type or body fails the running test.
#include <signal.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include "support/daemon.hpp"
#include "support/process.hpp"
#include "support/raw_socket.hpp"
#include "tests/contract/contract_validator.hpp"

namespace mixforge::test {

namespace fs = std::filesystem;

// The daemon's log: empty while it does not exist yet.
inline std::string read_log(const fs::path& p) {
  std::error_code ec;
  return fs::exists(p, ec) ? read_file(p) : std::string();
}

class Daemon {
 public:
  // extra: more `serve` options. data: reuse a data directory (restart tests).
  explicit Daemon(std::vector<std::string> extra = {}, fs::path data = {}, bool default_run = false)
      : extra_(std::move(extra)), work_(fresh_dir("e2e")) {
    data_ = data.empty() ? work_ / "data" : data;
    default_run_ = default_run;
    start();
  }
  ~Daemon() {
    proc_.reset();  // SIGKILLs and reaps a daemon still running
    std::error_code ec;
    fs::remove_all(work_, ec);
  }
  Daemon(const Daemon&) = delete;
  Daemon& operator=(const Daemon&) = delete;

  // Starts (again) on the same data directory (tests/support's launcher).
  void start() {
    log_ = work_ / ("log-" + std::to_string(starts_++) + ".txt");
    std::vector<std::string> args = {"--data", data_.string(), "--checkpoint-interval", "0.5"};
    if (!default_run_) args.push_back("--no-default-run");
    for (const auto& a : extra_) args.push_back(a);
    ServeChild child = launch_serve(MIXFORGE_EXE, args, work_ / "port", log_, 60);
    proc_.emplace(std::move(child.process));
    port_ = child.port;
  }

  // Runs `mixforge serve ARGS` expecting it to refuse to start; returns exit code and log.
  static std::pair<int, std::string> run_to_exit(const std::vector<std::string>& serve_args) {
    const fs::path dir = fresh_dir("refuse");
    std::vector<std::string> args = {MIXFORGE_EXE, "serve"};
    for (const auto& a : serve_args) args.push_back(a);
    std::optional<int> code;
    {
      Process p(args, spawn_options(dir / "log.txt"));
      for (int i = 0; i < 600 && !(code = p.try_wait()); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      // Still running: not what the caller expected (the Process destructor kills it).
    }
    const std::string log = read_log(dir / "log.txt");
    std::error_code ec;
    fs::remove_all(dir, ec);
    return {code ? (*code > 128 ? -1 : *code) : -2, log};
  }

  // SIGTERM and wait; returns the exit code (-1 when killed by a signal) and the seconds taken.
  std::pair<int, double> terminate(int sig = SIGTERM) {
    const auto t0 = std::chrono::steady_clock::now();
    proc_->signal(sig);
    const int code = proc_->wait();
    proc_.reset();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return {code > 128 ? -1 : code, s};
  }
  void kill9() {
    if (proc_) proc_->kill();
    proc_.reset();
  }
  bool alive() { return proc_ && proc_->running(); }

  int port() const { return port_; }
  const fs::path& data() const { return data_; }
  const fs::path& work() const { return work_; }
  std::string log() const { return read_log(log_); }
  httplib::Client client(int read_timeout_s = 60) const {
    httplib::Client c("127.0.0.1", port_);
    c.set_read_timeout(read_timeout_s, 0);
    c.set_connection_timeout(5, 0);
    c.set_logger(validate_response);
    return c;
  }

  // The contract check every client() runs on each response it receives.
  static void validate_response(const httplib::Request& req, const httplib::Response& res) {
    contract::Exchange e;
    e.method = req.method;
    e.target = req.path;
    e.status = res.status;
    for (const auto& [k, v] : res.headers) e.headers.emplace_back(k, v);
    e.body = res.body;
    e.body_complete = !req.content_receiver && !req.response_handler;
    const auto violations = contract::ContractValidator::bundled().check(e);
    if (!violations.empty()) ADD_FAILURE() << "API contract: " << contract::describe(e, violations);
  }

 private:
  static SpawnOptions spawn_options(const fs::path& log) {
    SpawnOptions o;
    o.output_file = log;
    o.die_with_parent = true;  // never outlive a test binary CTest killed
    return o;
  }

  std::vector<std::string> extra_;
  fs::path work_, data_, log_;
  bool default_run_ = false;
  std::optional<Process> proc_;  // while started and not yet reaped
  int port_ = 0;
  int starts_ = 0;
};

inline nlohmann::json body_json(const httplib::Result& r) {
  if (!r) throw std::runtime_error("no HTTP response: " + httplib::to_string(r.error()));
  return nlohmann::json::parse(r->body);
}

// A small run for tests: 16-bit, small pool, 1 thread.
inline std::string small_run_json(int width = 16, const std::string& extra = "") {
  return "{\"width\": " + std::to_string(width) +
         ", \"pool_size\": 64, \"threads\": 1, \"precision\": {\"leader_interval\": 200}" + extra + "}";
}

// Polls fn() until it returns true (or 60 s pass); returns its last value.
template <class F>
bool eventually(F fn, double timeout_s = 60) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (std::chrono::steady_clock::now() < deadline) {
    if (fn()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return fn();
}

}  // namespace mixforge::test
