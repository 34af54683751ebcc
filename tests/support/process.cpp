#include "support/process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <utility>

extern char** environ;

namespace mixforge::test {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void fail(const std::string& what, int err) {
  throw std::runtime_error(what + ": " + std::strerror(err));
}

// Closes the descriptors it holds on every path out of the constructor.
struct Fds {
  int pipe_read = -1, pipe_write = -1, out_file = -1, in = -1;
  ~Fds() {
    for (int fd : {pipe_read, pipe_write, out_file, in})
      if (fd >= 0) ::close(fd);
  }
};

// stdin_text goes through an unlinked temporary file: no pipe to keep fed, no deadlock
// with a child that writes before it reads.
int stdin_from_text(const std::string& text) {
  std::string tmpl = (fs::temp_directory_path() / "mixforge-stdin-XXXXXX").string();
  const int fd = ::mkstemp(tmpl.data());
  if (fd < 0) fail("mkstemp", errno);
  ::unlink(tmpl.c_str());
  for (std::size_t done = 0; done < text.size();) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0) {
      const int err = errno;
      ::close(fd);
      fail("writing stdin text", err);
    }
    done += static_cast<std::size_t>(n);
  }
  ::lseek(fd, 0, SEEK_SET);
  return fd;
}

}  // namespace

int exit_code_of(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

Process::Process(const std::vector<std::string>& argv, const SpawnOptions& options) {
  if (argv.empty()) throw std::invalid_argument("Process: empty argv");
  Fds fds;
  if (options.output_file.empty()) {
    int p[2];
    if (::pipe2(p, O_CLOEXEC) != 0) fail("pipe", errno);
    fds.pipe_read = p[0];
    fds.pipe_write = p[1];
  } else {
    fds.out_file = ::open(options.output_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fds.out_file < 0) fail("cannot open " + options.output_file.string(), errno);
  }
  if (options.stdin_text) fds.in = stdin_from_text(*options.stdin_text);

  const int out_fd = fds.out_file >= 0 ? fds.out_file : fds.pipe_write;
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  if (options.die_with_parent) {
    // posix_spawn cannot set the parent-death signal: fork, and in the child only
    // async-signal-safe calls before exec.
    const pid_t parent = ::getpid();
    const char* cwd = options.cwd.empty() ? nullptr : options.cwd.c_str();
    const pid_t pid = ::fork();
    if (pid < 0) fail("fork", errno);
    if (pid == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent) ::_exit(127);  // the parent died before prctl
      ::dup2(out_fd, STDOUT_FILENO);
      if (options.capture_stderr) ::dup2(out_fd, STDERR_FILENO);
      const int in = fds.in >= 0 ? fds.in : ::open("/dev/null", O_RDONLY);
      ::dup2(in, STDIN_FILENO);
      if (cwd && ::chdir(cwd) != 0) ::_exit(127);
      ::execvp(args[0], args.data());
      ::_exit(127);
    }
    pid_ = pid;
    out_ = std::exchange(fds.pipe_read, -1);
    return;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out_fd, STDOUT_FILENO);
  if (options.capture_stderr) posix_spawn_file_actions_adddup2(&actions, out_fd, STDERR_FILENO);
  if (fds.in >= 0)
    posix_spawn_file_actions_adddup2(&actions, fds.in, STDIN_FILENO);
  else
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  if (!options.cwd.empty()) posix_spawn_file_actions_addchdir_np(&actions, options.cwd.c_str());
  const int rc = ::posix_spawnp(&pid_, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    pid_ = -1;
    fail("cannot start " + argv[0], rc);
  }
  out_ = std::exchange(fds.pipe_read, -1);
}

Process::~Process() { release(); }

void Process::release() {
  if (pid_ > 0 && !exit_code_) kill();
  if (out_ >= 0) ::close(out_);
  out_ = -1;
  pid_ = -1;
}

Process::Process(Process&& o) noexcept
    : pid_(std::exchange(o.pid_, -1)), out_(std::exchange(o.out_, -1)), exit_code_(std::exchange(o.exit_code_, {})) {}

Process& Process::operator=(Process&& o) noexcept {
  if (this != &o) {
    release();
    pid_ = std::exchange(o.pid_, -1);
    out_ = std::exchange(o.out_, -1);
    exit_code_ = std::exchange(o.exit_code_, {});
  }
  return *this;
}

std::string Process::read_line() {
  if (out_ < 0) throw std::logic_error("Process::read_line: output goes to a file");
  std::string s;
  char ch;
  while (true) {
    const ssize_t n = ::read(out_, &ch, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n != 1 || ch == '\n') break;
    s += ch;
  }
  return s;
}

std::string Process::read_all() {
  if (out_ < 0) throw std::logic_error("Process::read_all: output goes to a file");
  std::string s;
  char buf[4096];
  while (true) {
    const ssize_t n = ::read(out_, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    s.append(buf, static_cast<std::size_t>(n));
  }
  return s;
}

int Process::wait() {
  if (exit_code_) return *exit_code_;
  if (pid_ <= 0) throw std::logic_error("Process::wait: no child");
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0)
    if (errno != EINTR) fail("waitpid", errno);
  exit_code_ = exit_code_of(status);
  return *exit_code_;
}

std::optional<int> Process::try_wait() {
  if (exit_code_ || pid_ <= 0) return exit_code_;
  int status = 0;
  if (::waitpid(pid_, &status, WNOHANG) == pid_) exit_code_ = exit_code_of(status);
  return exit_code_;
}

void Process::signal(int sig) {
  if (pid_ > 0 && !exit_code_) ::kill(pid_, sig);
}

int Process::kill() {
  signal(SIGKILL);
  return wait();
}

CommandResult run_command(const std::vector<std::string>& argv, const SpawnOptions& options) {
  Process p(argv, options);
  CommandResult r;
  if (options.output_file.empty()) r.output = p.read_all();
  r.exit_code = p.wait();
  if (!options.output_file.empty()) r.output = read_file(options.output_file);
  return r;
}

std::string find_tool(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::stringstream ss(path ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(ss, dir, ':')) {
    if (dir.empty()) continue;
    const fs::path p = fs::path(dir) / name;
    if (::access(p.c_str(), X_OK) == 0) return p.string();
  }
  return {};
}

fs::path fresh_dir(const std::string& tag, const fs::path& base) {
  const fs::path parent = base.empty() ? fs::temp_directory_path() : base;
  fs::create_directories(parent);
  std::string tmpl = (parent / ("mixforge-" + tag + "-XXXXXX")).string();
  if (!::mkdtemp(tmpl.data())) fail("mkdtemp " + tmpl, errno);
  return tmpl;
}

TempDir::TempDir(const std::string& tag, const fs::path& base) : path_(fresh_dir(tag, base)) {}

TempDir::~TempDir() {
  std::error_code ec;
  if (!std::getenv("MIXFORGE_KEEP_SCRATCH")) fs::remove_all(path_, ec);
}

std::string read_file_if_present(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string read_file(const fs::path& p) {
  if (!std::ifstream(p, std::ios::binary)) throw std::runtime_error("cannot read " + p.string());
  return read_file_if_present(p);
}

void write_file(const fs::path& p, const std::string& bytes) {
  std::ofstream out(p, std::ios::binary);
  out << bytes;
  if (!out) throw std::runtime_error("cannot write " + p.string());
}

std::string shell_quoted(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

}  // namespace mixforge::test
