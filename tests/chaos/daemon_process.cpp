#include "tests/chaos/daemon_process.hpp"

#include <dirent.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace mixforge::chaos {

namespace fs = std::filesystem;

namespace {

// tests/support reports a signal as 128 + its number; the daemon never exits with a
// code above 128 itself.
DaemonProcess::Exit exit_of(int code, double seconds) {
  DaemonProcess::Exit e;
  e.exited = true;
  e.seconds = seconds;
  if (code > 128)
    e.signal = code - 128;
  else
    e.code = code;
  return e;
}
}  // namespace

std::string DaemonProcess::Exit::describe() const {
  if (!exited) return "still running";
  if (signal) return "killed by signal " + std::to_string(signal) + " (" + ::strsignal(signal) + ")";
  return "exit code " + std::to_string(code);
}

DaemonProcess::DaemonProcess(fs::path exe, fs::path data, fs::path work, std::vector<std::string> extra_args)
    : exe_(std::move(exe)), data_(std::move(data)), work_(std::move(work)), extra_(std::move(extra_args)) {}

DaemonProcess::~DaemonProcess() = default;  // test::Process SIGKILLs and reaps a running child

void DaemonProcess::start(double timeout_s) {
  if (proc_) throw std::logic_error("daemon already running");
  log_ = work_ / ("serve-" + std::to_string(starts_++) + ".log");
  std::vector<std::string> args = {"--bind", "127.0.0.1", "--data", data_.string(), "--no-default-run"};
  for (const auto& a : extra_) args.push_back(a);
  test::ServeChild child = test::launch_serve(exe_, args, work_ / "port", log_, timeout_s);
  proc_.emplace(std::move(child.process));
  port_ = child.port;
}

DaemonProcess::Exit DaemonProcess::stop(int sig, double timeout_s, const fs::path& dump) {
  Exit e;
  if (!proc_) return e;
  const auto t0 = std::chrono::steady_clock::now();
  proc_->signal(sig);
  const auto deadline = t0 + std::chrono::duration<double>(timeout_s);
  for (;;) {
    const auto code = proc_->try_wait();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (code) {
      proc_.reset();
      return exit_of(*code, s);
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      if (!dump.empty()) dump_threads(dump);
      proc_.reset();  // SIGKILL and reap
      e.seconds = s;
      return e;  // exited = false: it did not stop in time
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

std::optional<DaemonProcess::Exit> DaemonProcess::poll() {
  if (!proc_) return std::nullopt;
  const auto code = proc_->try_wait();
  if (!code) return std::nullopt;
  proc_.reset();
  return exit_of(*code, 0);
}

std::optional<DaemonProcess::Usage> DaemonProcess::usage() const {
  if (!proc_) return std::nullopt;
  const std::string proc = "/proc/" + std::to_string(proc_->pid());
  Usage u;
  std::ifstream status(proc + "/status");
  std::string line;
  bool found = false;
  while (std::getline(status, line))
    if (line.rfind("VmRSS:", 0) == 0) {
      u.rss_kib = std::stol(line.substr(6));
      found = true;
    }
  if (!found) return std::nullopt;
  DIR* d = ::opendir((proc + "/fd").c_str());
  if (!d) return std::nullopt;
  while (const dirent* e = ::readdir(d))
    if (e->d_name[0] != '.') ++u.fds;
  ::closedir(d);
  return u;
}

void DaemonProcess::dump_threads(const fs::path& file) const {
  if (!proc_) return;
  const std::string proc = "/proc/" + std::to_string(proc_->pid()) + "/task";
  {
    std::ofstream out(file);
    std::error_code ec;
    for (const auto& t : fs::directory_iterator(proc, ec)) {
      std::string comm = test::read_file_if_present(t.path() / "comm"),
                  wchan = test::read_file_if_present(t.path() / "wchan");
      if (!comm.empty() && comm.back() == '\n') comm.pop_back();
      out << t.path().filename().string() << " " << comm << " wchan=" << wchan << "\n";
    }
  }
  if (::access("/usr/bin/gdb", X_OK) == 0) {
    const std::string cmd = "timeout 60 /usr/bin/gdb -p " + std::to_string(proc_->pid()) +
                            " -batch -ex 'thread apply all bt 12' >> '" + file.string() + "' 2>&1";
    if (std::system(cmd.c_str()) != 0) {
      // gdb may be refused (ptrace restrictions): the wait channels above remain.
    }
  }
}

std::string DaemonProcess::log_tail(std::size_t bytes) const { return test::file_tail(log_, bytes); }

}  // namespace mixforge::chaos
