#pragma once
// Which process owns the runs it is running: a lease on the data directory, held as an
// exclusive flock(2) on DATA/owners/<pid>.lock for as long as the process (its
// RunManager) lives. The kernel drops the lock the moment the process dies, so a dead
// owner is told apart from a live one even while its process id still exists: a zombie
// that its parent has not reaped yet, or an unrelated process that got the id after a
// reboot or a container restart. kill(pid, 0) cannot tell those apart.
#include <filesystem>

namespace mixforge::evolver {

class ProcessLease {
 public:
  // Takes this process's lease in data_dir. Throws std::runtime_error naming the file
  // when it cannot be made.
  ProcessLease(const std::filesystem::path& data_dir, int pid);
  ~ProcessLease();
  ProcessLease(const ProcessLease&) = delete;
  ProcessLease& operator=(const ProcessLease&) = delete;

  // True while process `pid` holds its lease in data_dir.
  static bool held(const std::filesystem::path& data_dir, int pid);

 private:
  std::filesystem::path path_;
  int fd_ = -1;
};

}  // namespace mixforge::evolver
