#pragma once
// One `mixforge serve` child process on loopback, started by tests/support's launcher (as
// the server e2e tests start it), that the chaos driver can kill, reap and start again on
// the same data directory. The chaos supervisor thread is its only user, so nothing here
// is locked.
#include <sys/types.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "support/daemon.hpp"
#include "support/process.hpp"

namespace mixforge::chaos {

class DaemonProcess {
 public:
  // exe: the mixforge binary; work: a folder for the port file and the logs.
  DaemonProcess(std::filesystem::path exe, std::filesystem::path data, std::filesystem::path work,
                std::vector<std::string> extra_args);
  ~DaemonProcess();  // SIGKILLs a child that is still running (test::Process)
  DaemonProcess(const DaemonProcess&) = delete;
  DaemonProcess& operator=(const DaemonProcess&) = delete;

  // Spawns the daemon and waits (up to timeout_s) until it reports its port; throws with
  // the log when it exits or stays silent.
  void start(double timeout_s = 120);

  struct Exit {
    bool exited = false;  // false: still running after the timeout (then SIGKILLed)
    int code = -1;        // exit code when it exited normally
    int signal = 0;       // the signal that ended it, else 0
    double seconds = 0;   // from the signal to the exit
    std::string describe() const;
  };
  // Sends sig and waits up to timeout_s for the exit (then SIGKILL; a non-empty dump
  // file gets the threads of a daemon that did not exit in time, before the SIGKILL).
  Exit stop(int sig, double timeout_s, const std::filesystem::path& dump = {});
  // Reaps the child when it has exited on its own (a crash: nobody killed it).
  std::optional<Exit> poll();

  struct Usage {
    long rss_kib = 0;
    int fds = 0;
  };
  // /proc/PID/status VmRSS and the number of entries in /proc/PID/fd.
  std::optional<Usage> usage() const;

  // Every thread's name and kernel wait channel, and (where gdb is installed) a backtrace
  // of every thread, written to `file`: what the daemon was doing when it stopped answering.
  void dump_threads(const std::filesystem::path& file) const;

  bool running() const { return proc_.has_value(); }
  int port() const { return port_; }
  pid_t pid() const { return proc_ ? proc_->pid() : -1; }
  int starts() const { return starts_; }
  std::string log_tail(std::size_t bytes = 2000) const;

 private:
  std::filesystem::path exe_, data_, work_, log_;
  std::vector<std::string> extra_;
  std::optional<test::Process> proc_;  // while started and not yet reaped
  int port_ = 0;
  int starts_ = 0;
};

}  // namespace mixforge::chaos
