#pragma once
// Test helpers for running real programs (the mixforge binary, compilers, node) and for
// scratch files. One implementation for every test folder: posix_spawn (fork + exec for
// die_with_parent), no shell.
#include <sys/types.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace mixforge::test {

// What a program printed and how it ended.
struct CommandResult {
  int exit_code = -1;  // the exit status, or 128 + signal number when a signal ended it
  std::string output;  // stdout (and stderr, unless SpawnOptions::capture_stderr is false)
};

struct SpawnOptions {
  std::filesystem::path cwd;              // empty: this process's working directory
  std::filesystem::path output_file;      // empty: a pipe read with Process::read_line/read_all
  bool capture_stderr = true;             // stderr joins the output (else it is inherited)
  std::optional<std::string> stdin_text;  // else stdin is /dev/null
  // The child gets SIGKILL when this process dies (Linux PR_SET_PDEATHSIG): a daemon
  // under test must not outlive a driver that CTest killed at its timeout.
  bool die_with_parent = false;
};

// A running child process. The destructor SIGKILLs and reaps a child still running, so a
// failed assertion never leaves a process behind.
class Process {
 public:
  // argv[0] is a path, or a bare name looked up on PATH. Throws when it cannot start.
  explicit Process(const std::vector<std::string>& argv, const SpawnOptions& options = {});
  ~Process();
  Process(Process&& other) noexcept;
  Process& operator=(Process&& other) noexcept;
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;

  pid_t pid() const { return pid_; }
  // Output through the pipe (only without SpawnOptions::output_file): one line without its
  // '\n' (empty at end of output), or everything up to end of output.
  std::string read_line();
  std::string read_all();
  // Waits for the exit; returns the exit status, or 128 + signal.
  int wait();
  // The exit status when it has ended, without blocking.
  std::optional<int> try_wait();
  bool running() { return !try_wait().has_value(); }
  void signal(int sig);
  // SIGKILL (when still running) and reap; returns the exit status as wait() does.
  int kill();

 private:
  void release();
  pid_t pid_ = -1;
  int out_ = -1;  // read end of the output pipe
  std::optional<int> exit_code_;
};

// Runs argv to its exit and returns what it printed.
CommandResult run_command(const std::vector<std::string>& argv, const SpawnOptions& options = {});

// exit status from a waitpid() status: the code, or 128 + signal number.
int exit_code_of(int wait_status);

// The executable's path on PATH, or empty.
std::string find_tool(const std::string& name);

// A fresh, empty folder (mkdtemp) removed with everything in it on destruction (kept when
// the environment variable MIXFORGE_KEEP_SCRATCH is set, for debugging).
class TempDir {
 public:
  explicit TempDir(const std::string& tag, const std::filesystem::path& base = {});
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

// A fresh, empty folder that the caller owns (removes).
std::filesystem::path fresh_dir(const std::string& tag, const std::filesystem::path& base = {});

// Whole file as bytes; throws when it cannot be read.
std::string read_file(const std::filesystem::path& p);
// The same, or empty when it cannot be read (a file another process has not written yet
// or has just removed: a port file, a /proc entry of a thread that ended).
std::string read_file_if_present(const std::filesystem::path& p);
void write_file(const std::filesystem::path& p, const std::string& bytes);

// Single-quotes an argument for a POSIX shell (for messages that show a command line).
std::string shell_quoted(const std::string& s);

}  // namespace mixforge::test
