#pragma once
// The daemon in the test's own process (server::Daemon on a thread, ephemeral loopback
// port, fresh data directory), for tests that control its timing through hooks instead
// of the wall clock; and a gate such a hook can wait on.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

#include <httplib.h>

#include "server/daemon.hpp"
#include "tests/server/daemon_process.hpp"

namespace mixforge::test {

class InProcessDaemon {
 public:
  explicit InProcessDaemon(const std::function<void(server::DaemonOptions&)>& tweak = {}) : dir_(fresh_dir("inproc")) {
    server::DaemonOptions o;
    o.port = 0;
    o.data_dir = dir_ / "data";
    o.default_run = false;
    o.interpreter_only = true;
    o.checkpoint_interval_s = 0.5;
    o.log.level = server::LogLevel::warn;
    if (tweak) tweak(o);
    daemon_ = std::make_unique<server::Daemon>(o);
    thread_ = std::thread([this] { rc_ = daemon_->run(); });
  }
  ~InProcessDaemon() {
    daemon_->stop();
    thread_.join();
    daemon_.reset();
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  InProcessDaemon(const InProcessDaemon&) = delete;
  InProcessDaemon& operator=(const InProcessDaemon&) = delete;

  int port() const { return daemon_->port(); }
  httplib::Client client(int read_timeout_s = 60) const {
    httplib::Client c("127.0.0.1", port());
    c.set_read_timeout(read_timeout_s, 0);
    c.set_connection_timeout(5, 0);
    c.set_logger(Daemon::validate_response);  // the same contract check as the e2e daemon's clients
    return c;
  }
  // A gauge or counter without labels from /metrics (-1 when absent).
  long metric(const std::string& name) const {
    auto m = client().Get("/metrics");
    if (!m) return -1;
    const auto at = m->body.find("\n" + name + " ");
    return at == std::string::npos ? -1 : std::stol(m->body.substr(at + name.size() + 2));
  }

 private:
  fs::path dir_;
  std::unique_ptr<server::Daemon> daemon_;
  std::thread thread_;
  int rc_ = -1;
};

// Holds whoever passes until released (or until the passer's cancel flag is set).
class Gate {
 public:
  void pass(const std::atomic<bool>& cancelled) {
    std::unique_lock lk(mu_);
    ++entered_;
    cv_.notify_all();
    // The flag is set without our mutex: look at it now and then.
    while (!open_ && !cancelled.load()) cv_.wait_for(lk, std::chrono::milliseconds(10));
  }
  // Waits (up to 60 s) until n have entered; false when they did not.
  bool wait_entered(int n) {
    std::unique_lock lk(mu_);
    return cv_.wait_for(lk, std::chrono::seconds(60), [&] { return entered_ >= n; });
  }
  int entered() {
    std::lock_guard lk(mu_);
    return entered_;
  }
  void release() {
    std::lock_guard lk(mu_);
    open_ = true;
    cv_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int entered_ = 0;
  bool open_ = false;
};

}  // namespace mixforge::test
