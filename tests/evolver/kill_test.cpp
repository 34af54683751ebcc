// A run killed with SIGKILL resumes from its last checkpoint: the database passes
// integrity_check, no hall-of-fame entry is lost, the checkpoint is at most ~5 s old.
// Spawns the real mixforge binary.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "avalanche/evaluator.hpp"
#include "evolver/run_manager.hpp"
#include "evolver/store.hpp"

extern char** environ;

using namespace mixforge;
using namespace mixforge::evolver;

namespace {

struct Child {
  pid_t pid = -1;
  int out = -1;  // read end of its stdout
};

Child spawn(const std::vector<std::string>& args, bool with_stderr = false) {
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error("pipe failed");
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, fds[1], STDOUT_FILENO);
  if (with_stderr) posix_spawn_file_actions_adddup2(&fa, fds[1], STDERR_FILENO);
  posix_spawn_file_actions_addclose(&fa, fds[0]);
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  Child c;
  const int rc = posix_spawn(&c.pid, argv[0], &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  ::close(fds[1]);
  if (rc != 0) throw std::runtime_error("posix_spawn " + args[0] + " failed: " + std::to_string(rc));
  c.out = fds[0];
  return c;
}

std::string read_line(int fd) {
  std::string s;
  char ch;
  while (::read(fd, &ch, 1) == 1 && ch != '\n') s += ch;
  return s;
}

std::string read_all(int fd) {
  std::string s;
  char buf[4096];
  for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) s.append(buf, static_cast<std::size_t>(n));
  return s;
}

int wait_exit(pid_t pid) {
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

}  // namespace

TEST(KillNine, ResumesFromLastCheckpointWithHallOfFameIntact) {
  const std::string binary = std::string(MIXFORGE_BINARY_DIR) + "/cli/mixforge";
  ASSERT_TRUE(std::filesystem::exists(binary)) << binary;
  const auto dir = std::filesystem::temp_directory_path() / ("mixforge-kill-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);

  Child c = spawn({binary, "evolve", "--width", "12", "--max-steps", "6", "--pool", "300", "--seconds", "120",
                   "--threads", "1", "--seed", "5", "--data", dir.string()});
  const std::string first = read_line(c.out);
  ASSERT_EQ(first.rfind("run_id: ", 0), 0u) << first;
  const std::string id = first.substr(8);
  const auto started = std::chrono::steady_clock::now();
  std::this_thread::sleep_for(std::chrono::milliseconds(7500));
  ASSERT_EQ(::kill(c.pid, SIGKILL), 0);
  EXPECT_EQ(wait_exit(c.pid), 128 + SIGKILL);
  ::close(c.out);
  const double killed_after = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();

  std::vector<HallOfFameEntry> before;
  double checkpoint_elapsed = 0;
  {
    Store s(dir);
    EXPECT_EQ(s.integrity_check(), "ok");
    before = s.hall_of_fame(id, 100000);
    auto r = s.run(id);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->summary.state, RunState::running);  // as the dead process left it
    checkpoint_elapsed = r->summary.counters.elapsed_s;
    const auto cp = s.load_checkpoint(id);
    ASSERT_TRUE(cp);
    EXPECT_EQ(cp->pool.size(), 300u);
    EXPECT_FALSE(cp->rngs.empty());
  }
  ASSERT_FALSE(before.empty());
  // Checkpoints come every 5 s: the last one is at most ~5 s (+ start-up slack) old.
  EXPECT_GT(checkpoint_elapsed, killed_after - 5.0 - 1.5) << "killed after " << killed_after << " s";
  // Every hall-of-fame entry carries its true exact score.
  Evaluator ev(nullptr);
  for (const auto& e : before) {
    EXPECT_TRUE(e.function.exact);
    EXPECT_EQ(e.function.chi2, ev.exact(e.function.program).chi2) << e.function.text;
  }
  {
    RunManager::Options o;
    o.data_dir = dir;
    o.interpreter_only = true;
    RunManager m(o);
    EXPECT_EQ(m.get(id).state, RunState::stopped);  // owner died: resumable
  }

  // Resume with the CLI, as a user would.
  Child r = spawn({binary, "runs", "resume", id, "--seconds", "2", "--json", "--data", dir.string()});
  const std::string out = read_all(r.out);
  ::close(r.out);
  EXPECT_EQ(wait_exit(r.pid), 0) << out;
  const auto last_nl = out.find_last_of('\n', out.size() - 2);
  const nlohmann::json j = nlohmann::json::parse(out.substr(last_nl == std::string::npos ? 0 : last_nl + 1));
  EXPECT_EQ(j.at("run_id"), id);
  ASSERT_FALSE(j.at("best").empty());
  const auto& best = j.at("best")[0];
  for (const char* k : {"text", "width", "steps", "chi2_exact", "bias"}) EXPECT_TRUE(best.contains(k)) << k;

  Store s(dir);
  EXPECT_EQ(s.integrity_check(), "ok");
  const auto after = s.hall_of_fame(id, 100000);
  for (const auto& e : before) {
    const bool kept = std::any_of(after.begin(), after.end(), [&](const HallOfFameEntry& a) {
      return a.function.id == e.function.id && a.function.chi2 == e.function.chi2;
    });
    EXPECT_TRUE(kept) << e.function.id;
  }
  const auto run = s.run(id);
  ASSERT_TRUE(run && run->summary.best);
  EXPECT_LE(run->summary.best->chi2, before.front().function.chi2);
  EXPECT_EQ(run->summary.state, RunState::finished);
  EXPECT_GT(run->summary.counters.elapsed_s, checkpoint_elapsed);
  std::filesystem::remove_all(dir);
}

TEST(Cli, ConfigErrorsNameTheFieldAndExitTwo) {
  const std::string binary = std::string(MIXFORGE_BINARY_DIR) + "/cli/mixforge";
  const auto dir = std::filesystem::temp_directory_path() / ("mixforge-clicfg-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto cfg = dir / "run.json";
  {
    std::ofstream f(cfg);
    f << R"({"width": 8, "early_reject": {"margin": -3}})";
  }
  Child c = spawn({binary, "evolve", "--config", cfg.string(), "--data", (dir / "data").string()}, true);
  const std::string out = read_all(c.out);
  ::close(c.out);
  EXPECT_EQ(wait_exit(c.pid), 2) << out;
  EXPECT_NE(out.find("early_reject.margin"), std::string::npos) << out;
  Child d = spawn({binary, "evolve", "--width", "99", "--data", (dir / "data").string()}, true);
  const std::string out2 = read_all(d.out);
  ::close(d.out);
  EXPECT_EQ(wait_exit(d.pid), 2) << out2;
  EXPECT_NE(out2.find("width"), std::string::npos) << out2;
  Child e = spawn({binary, "runs", "show", "nope", "--data", (dir / "data").string()}, true);
  const std::string out3 = read_all(e.out);
  ::close(e.out);
  EXPECT_EQ(wait_exit(e.pid), 2) << out3;
  EXPECT_NE(out3.find("no run with id nope"), std::string::npos) << out3;
  std::filesystem::remove_all(dir);
}
