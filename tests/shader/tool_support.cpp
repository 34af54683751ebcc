#include "tool_support.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>

extern char** environ;

namespace mixforge::test {

namespace fs = std::filesystem;

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

CommandResult run_command(const std::vector<std::string>& argv, const fs::path& cwd) {
  char tmpl[] = "/tmp/mixforge-cmd-XXXXXX";
  const int fd = ::mkstemp(tmpl);
  if (fd < 0) throw std::runtime_error("mkstemp failed");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fd, 1);
  posix_spawn_file_actions_adddup2(&actions, fd, 2);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  if (!cwd.empty()) posix_spawn_file_actions_addchdir_np(&actions, cwd.c_str());
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int rc = ::posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  CommandResult r;
  if (rc != 0) {
    ::close(fd);
    ::unlink(tmpl);
    r.output = "cannot start " + argv[0];
    return r;
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  ::close(fd);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.output = read_text(tmpl);
  ::unlink(tmpl);
  return r;
}

ScratchDir::ScratchDir(const std::string& tag) {
  const fs::path base = fs::path(MIXFORGE_BINARY_DIR) / "test-scratch";
  fs::create_directories(base);
  std::random_device rd;
  for (int i = 0; i < 100; ++i) {
    fs::path p = base / (tag + "-" + std::to_string(::getpid()) + "-" + std::to_string(rd() % 1000000));
    if (fs::create_directory(p)) {
      path_ = p;
      return;
    }
  }
  throw std::runtime_error("cannot create a scratch folder under " + base.string());
}

ScratchDir::~ScratchDir() {
  std::error_code ec;
  if (!std::getenv("MIXFORGE_KEEP_SCRATCH")) fs::remove_all(path_, ec);
}

void write_text(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + p.string());
}

void write_words(const fs::path& p, const std::vector<std::uint32_t>& words) {
  std::ofstream out(p, std::ios::binary);
  out.write(reinterpret_cast<const char*>(words.data()), static_cast<std::streamsize>(words.size() * 4));
  if (!out) throw std::runtime_error("cannot write " + p.string());
}

std::vector<std::uint32_t> read_words(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + p.string());
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::uint32_t> words(bytes.size() / 4);
  std::memcpy(words.data(), bytes.data(), words.size() * 4);
  return words;
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace mixforge::test
