#pragma once
// A `mixforge serve` child on an ephemeral loopback port with a fresh data directory, for
// the server benchmarks (bench_server_load, bench_shutdown). The destructor SIGKILLs a
// daemon still running and removes the directory.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace mixforge::bench {

class BenchDaemon {
 public:
  // exe: the mixforge binary; tag names the scratch folder; extra: more serve options.
  BenchDaemon(const std::string& exe, const std::string& tag, std::vector<std::string> extra = {}) {
    std::string tmpl = (std::filesystem::temp_directory_path() / ("mixforge-" + tag + "-XXXXXX")).string();
    if (!::mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
    dir_ = tmpl;
    const std::string port_file = (dir_ / "port").string(), data = (dir_ / "data").string(),
                      log = (dir_ / "log.txt").string();
    std::vector<std::string> args = {exe,         "serve", "--port", "0", "--port-file", port_file, "--data",
                                     data,        "--no-default-run"};
    for (auto& a : extra) args.push_back(std::move(a));
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_ = ::fork();
    if (pid_ < 0) throw std::runtime_error("fork failed");
    if (pid_ == 0) {
      const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      ::dup2(fd, 1);
      ::dup2(fd, 2);
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
    for (int i = 0; i < 1200 && !std::filesystem::exists(port_file); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    std::ifstream in(port_file);
    in >> port_;
    if (!port_) throw std::runtime_error("the daemon did not start (log: " + log + ")");
  }
  ~BenchDaemon() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      int st;
      ::waitpid(pid_, &st, 0);
    }
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  BenchDaemon(const BenchDaemon&) = delete;
  BenchDaemon& operator=(const BenchDaemon&) = delete;

  int port() const { return port_; }
  pid_t pid() const { return pid_; }

  // Sends sig and waits for the exit: seconds from the signal, and whether it exited 0.
  std::pair<double, bool> stop(int sig) {
    const auto t0 = std::chrono::steady_clock::now();
    ::kill(pid_, sig);
    int st = 0;
    ::waitpid(pid_, &st, 0);
    pid_ = -1;
    return {std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(),
            WIFEXITED(st) && WEXITSTATUS(st) == 0};
  }

 private:
  std::filesystem::path dir_;
  pid_t pid_ = -1;
  int port_ = 0;
};

}  // namespace mixforge::bench
