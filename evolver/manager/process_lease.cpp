#include "evolver/manager/process_lease.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace mixforge::evolver {
namespace {
std::filesystem::path lease_path(const std::filesystem::path& data_dir, int pid) {
  return data_dir / "owners" / (std::to_string(pid) + ".lock");
}
}  // namespace

ProcessLease::ProcessLease(const std::filesystem::path& data_dir, int pid) : path_(lease_path(data_dir, pid)) {
  std::error_code ec;
  std::filesystem::create_directories(path_.parent_path(), ec);
  // Locked under a private name, then renamed into place: no other process ever sees
  // this lease's file unlocked (a dead owner's file of the same name is replaced).
  const auto tmp = path_.parent_path() / ("." + path_.filename().string() + ".new");
  fd_ = ::open(tmp.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0 || ::flock(fd_, LOCK_EX | LOCK_NB) != 0 || ::rename(tmp.c_str(), path_.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    if (fd_ >= 0) ::close(fd_);
    throw std::runtime_error("cannot take the lease " + path_.string() + ": " + why);
  }
}

ProcessLease::~ProcessLease() {
  // Removed only while it is still ours: another manager of this process (same name) may
  // have replaced it.
  struct stat mine{}, named{};
  if (::fstat(fd_, &mine) == 0 && ::stat(path_.c_str(), &named) == 0 && mine.st_ino == named.st_ino &&
      mine.st_dev == named.st_dev)
    ::unlink(path_.c_str());
  ::close(fd_);
}

bool ProcessLease::held(const std::filesystem::path& data_dir, int pid) {
  if (pid <= 0) return false;
  const int fd = ::open(lease_path(data_dir, pid).c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;  // never taken, or given back
  const bool locked = ::flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
  ::close(fd);  // also drops a shared lock taken just now
  return locked;
}

}  // namespace mixforge::evolver
