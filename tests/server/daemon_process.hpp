#pragma once
// Starts the real `mixforge serve` on an ephemeral loopback port (--port 0 --port-file)
// with a fresh data directory, and talks HTTP to it with cpp-httplib. Every response a
// client() receives is checked against the bundled OpenAPI document (tests/contract): an
// undocumented status, content type or body fails the running test.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include "tests/contract/contract_validator.hpp"

namespace mixforge::test {

namespace fs = std::filesystem;

inline fs::path fresh_dir(const std::string& tag) {
  std::string tmpl = (fs::temp_directory_path() / ("mixforge-" + tag + "-XXXXXX")).string();
  if (!::mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
  return tmpl;
}

inline std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
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
    if (pid_ > 0) kill9();
    std::error_code ec;
    fs::remove_all(work_, ec);
  }
  Daemon(const Daemon&) = delete;
  Daemon& operator=(const Daemon&) = delete;

  // Starts (again) on the same data directory.
  void start() {
    const fs::path port_file = work_ / "port";
    std::error_code ec;
    fs::remove(port_file, ec);
    log_ = work_ / ("log-" + std::to_string(starts_++) + ".txt");
    std::vector<std::string> args = {MIXFORGE_EXE, "serve", "--port", "0", "--port-file", port_file.string(),
                                     "--data", data_.string(), "--checkpoint-interval", "0.5"};
    if (!default_run_) args.push_back("--no-default-run");
    for (const auto& a : extra_) args.push_back(a);
    pid_ = spawn(args, log_);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (std::chrono::steady_clock::now() < deadline) {
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        throw std::runtime_error("mixforge serve exited during startup: " + read_file(log_));
      }
      if (fs::exists(port_file)) {
        port_ = std::stoi(read_file(port_file));
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    throw std::runtime_error("mixforge serve did not report its port: " + read_file(log_));
  }

  // Runs `mixforge serve ARGS` expecting it to refuse to start; returns exit code and log.
  static std::pair<int, std::string> run_to_exit(const std::vector<std::string>& serve_args) {
    const fs::path dir = fresh_dir("refuse");
    std::vector<std::string> args = {MIXFORGE_EXE, "serve"};
    for (const auto& a : serve_args) args.push_back(a);
    const pid_t pid = spawn(args, dir / "log.txt");
    int status = 0;
    for (int i = 0; i < 600 && ::waitpid(pid, &status, WNOHANG) != pid; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    std::string log = read_file(dir / "log.txt");
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (::waitpid(pid, &status, WNOHANG) == 0) {  // still running: not what the caller expected
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      code = -2;
    }
    std::error_code ec;
    fs::remove_all(dir, ec);
    return {code, log};
  }

  // SIGTERM and wait; returns the exit code (-1 when killed by a signal) and the seconds taken.
  std::pair<int, double> terminate(int sig = SIGTERM) {
    const auto t0 = std::chrono::steady_clock::now();
    ::kill(pid_, sig);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, s};
  }
  void kill9() {
    ::kill(pid_, SIGKILL);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
  }
  bool alive() const {
    int status = 0;
    return pid_ > 0 && ::waitpid(pid_, &status, WNOHANG) == 0;
  }

  int port() const { return port_; }
  const fs::path& data() const { return data_; }
  const fs::path& work() const { return work_; }
  std::string log() const { return read_file(log_); }
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
  static pid_t spawn(const std::vector<std::string>& args, const fs::path& log) {
    const pid_t pid = ::fork();
    if (pid < 0) throw std::runtime_error("fork failed");
    if (pid == 0) {
      const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      ::dup2(fd, 1);
      ::dup2(fd, 2);
      const int devnull = ::open("/dev/null", O_RDONLY);
      ::dup2(devnull, 0);
      std::vector<char*> argv;
      for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
    return pid;
  }

  std::vector<std::string> extra_;
  fs::path work_, data_, log_;
  bool default_run_ = false;
  pid_t pid_ = -1;
  int port_ = 0;
  int starts_ = 0;
};

inline nlohmann::json body_json(const httplib::Result& r) {
  if (!r) throw std::runtime_error("no HTTP response: " + httplib::to_string(r.error()));
  return nlohmann::json::parse(r->body);
}

// Sends raw bytes and returns everything the server answers before closing (or 5 s).
std::string raw_exchange(int port, const std::string& bytes, double timeout_s = 5);

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
