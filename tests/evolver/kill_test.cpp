// A run killed with SIGKILL resumes from its last checkpoint: the database passes
// integrity_check, no hall-of-fame entry is lost, and the checkpoint left behind is the
// newest one the test saw written (or newer). Spawns the real mixforge binary. The kill
// waits for what it needs in the database (a full-pool checkpoint, then a later one),
// never for a fixed time, so a slow or instrumented machine only makes it take longer.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "avalanche/evaluator.hpp"
#include "evolver/manager/run_manager.hpp"
#include "evolver/store/store.hpp"
#include "support/process.hpp"

using namespace mixforge;
using namespace mixforge::evolver;
using mixforge::test::Process;

namespace {
// The child's stdout through a pipe; stderr joins it only where asked (the first stdout
// line of `evolve` is parsed).
Process spawn(const std::vector<std::string>& args, bool with_stderr = false) {
  mixforge::test::SpawnOptions o;
  o.capture_stderr = with_stderr;
  return Process(args, o);
}

// `mixforge evolve ARGS --data DIR` running; *id: the run id it prints first.
Process start_evolve(const std::vector<std::string>& args, const std::filesystem::path& dir, std::string* id) {
  const std::string binary = std::string(MIXFORGE_BINARY_DIR) + "/cli/mixforge";
  std::vector<std::string> argv{binary, "evolve"};
  argv.insert(argv.end(), args.begin(), args.end());
  argv.insert(argv.end(), {"--data", dir.string()});
  Process c = spawn(argv);
  const std::string first = c.read_line();
  if (first.rfind("run_id: ", 0) != 0) throw std::runtime_error("evolve printed no run id: " + first);
  *id = first.substr(8);
  return c;
}
}  // namespace

TEST(KillNine, ResumesFromLastCheckpointWithHallOfFameIntact) {
  const std::string binary = std::string(MIXFORGE_BINARY_DIR) + "/cli/mixforge";
  ASSERT_TRUE(std::filesystem::exists(binary)) << binary;
  const mixforge::test::TempDir tmp("kill");
  const auto dir = tmp.path();

  std::string id;
  Process c = start_evolve({"--width", "12", "--max-steps", "6", "--pool", "300", "--seconds", "600", "--threads", "1",
                            "--seed", "5"},
                           dir, &id);
  // Gate: a checkpoint with the full pool and a hall of fame, then the next checkpoint
  // after it, so that the kill lands while the run has already checkpointed twice.
  double seen_elapsed = -1;
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(240);
  for (;;) {
    ASSERT_LT(std::chrono::steady_clock::now(), give_up) << "no second full checkpoint in 240 s";
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    Store s(dir);
    const auto cp = s.load_checkpoint(id);
    const auto r = s.run(id);
    if (!cp || !r || cp->pool.size() < 300 || s.hall_of_fame(id, 1).empty()) continue;
    const double elapsed = r->summary.counters.elapsed_s;
    if (seen_elapsed < 0) {
      seen_elapsed = elapsed;
    } else if (elapsed > seen_elapsed) {
      seen_elapsed = elapsed;
      break;
    }
  }
  EXPECT_EQ(c.kill(), 128 + SIGKILL);

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
  // The kill lost nothing that was checkpointed: the stored state is the last one seen.
  EXPECT_GE(checkpoint_elapsed, seen_elapsed);
  avalanche::Evaluator ev(nullptr);
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
  Process r = spawn({binary, "runs", "resume", id, "--seconds", "2", "--json", "--data", dir.string()});
  const std::string out = r.read_all();
  EXPECT_EQ(r.wait(), 0) << out;
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
}

// Who owns a running run: a live process that runs it keeps it (another process may not
// resume it), but a dead one does not, even while its process id still exists: as a
// zombie its parent has not reaped yet, or reused by an unrelated process (a reboot, a
// container restart).
TEST(KillNine, OnlyALiveOwnerKeepsItsRun) {
  const std::string binary = std::string(MIXFORGE_BINARY_DIR) + "/cli/mixforge";
  ASSERT_TRUE(std::filesystem::exists(binary)) << binary;
  const mixforge::test::TempDir tmp("owner");
  const auto dir = tmp.path();
  std::string id;
  Process c = start_evolve({"--width", "8", "--max-steps", "4", "--pool", "40", "--seconds", "600", "--threads", "1",
                            "--seed", "3"},
                           dir, &id);
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  for (;;) {
    ASSERT_LT(std::chrono::steady_clock::now(), give_up) << "the run was never stored as running";
    const auto r = Store(dir).run(id);
    if (r && r->summary.state == RunState::running && r->owner_pid == c.pid()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  auto resume = [&] {
    Process r = spawn({binary, "runs", "resume", id, "--seconds", "1", "--data", dir.string()}, true);
    const std::string out = r.read_all();
    return std::make_pair(r.wait(), out);
  };
  {
    const auto [code, out] = resume();
    EXPECT_EQ(code, 2) << out;
    EXPECT_NE(out.find("is active in process " + std::to_string(c.pid())), std::string::npos) << out;
  }
  {
    // Nor may it delete it: the owner would lose its results at its next checkpoint.
    Process d = spawn({binary, "runs", "delete", id, "--data", dir.string()}, true);
    const std::string out = d.read_all();
    EXPECT_EQ(d.wait(), 2) << out;
    EXPECT_NE(out.find("is active in process " + std::to_string(c.pid())), std::string::npos) << out;
    EXPECT_TRUE(Store(dir).run(id).has_value());
  }
  // Killed and not reaped: a zombie still answers kill(pid, 0).
  c.signal(SIGKILL);
  siginfo_t info{};
  ASSERT_EQ(::waitid(P_PID, static_cast<id_t>(c.pid()), &info, WEXITED | WNOWAIT), 0);
  ASSERT_EQ(::kill(c.pid(), 0), 0) << "the owner should be a zombie here";
  {
    const auto [code, out] = resume();
    EXPECT_EQ(code, 0) << out;
  }
  EXPECT_EQ(c.wait(), 128 + SIGKILL);

  // The stored owner's id now belongs to an unrelated live process.
  Process unrelated = spawn({"sleep", "600"});
  Store(dir).set_state(id, RunState::running, static_cast<int>(unrelated.pid()));
  {
    const auto [code, out] = resume();
    EXPECT_EQ(code, 0) << out;
  }
  EXPECT_EQ(Store(dir).run(id)->summary.state, RunState::finished);
}

// A budget is a finite positive number of seconds, or 1..2^63-1 tournaments, however it is
// given: --seconds nan or inf ran without end, runs resume took -1 and 0, and 2^63
// tournaments wrapped to a negative number in the message.
TEST(Cli, BudgetsAreFinitePositiveNumbers) {
  const std::string binary = std::string(MIXFORGE_BINARY_DIR) + "/cli/mixforge";
  const mixforge::test::TempDir tmp("clibudget");
  const auto data = (tmp.path() / "data").string();
  auto run = [&](std::vector<std::string> args) {
    args.insert(args.begin(), binary);
    args.insert(args.end(), {"--data", data});
    Process p = spawn(args, true);
    const std::string out = p.read_all();
    return std::make_pair(p.wait(), out);
  };
  for (const char* s : {"nan", "inf", "-inf", "0", "-1"}) {
    const auto [code, out] = run({"evolve", "--width", "8", "--pool", "10", "--threads", "1", "--tournaments", "5", "--seconds", s});
    EXPECT_EQ(code, 2) << s << ": " << out;
    EXPECT_NE(out.find("--seconds: "), std::string::npos) << s << ": " << out;  // the flag, as the use case names it
  }
  {
    const auto [code, out] = run({"evolve", "--width", "8", "--tournaments", "9223372036854775808"});
    EXPECT_EQ(code, 2) << out;
    EXPECT_NE(out.find("--tournaments: "), std::string::npos) << out;
    EXPECT_NE(out.find("9223372036854775807"), std::string::npos) << out;
  }
  {
    const auto cfg = tmp.path() / "huge.json";
    std::ofstream(cfg) << R"({"width": 8, "budget": {"seconds": 1e999}})";
    const auto [code, out] = run({"evolve", "--config", cfg.string()});
    EXPECT_EQ(code, 2) << out;
    EXPECT_NE(out.find(cfg.string() + ": "), std::string::npos) << out;
    EXPECT_NE(out.find("1e999"), std::string::npos) << out;
  }
  const auto [code, out] = run({"evolve", "--width", "8", "--pool", "10", "--threads", "1", "--tournaments", "20"});
  ASSERT_EQ(code, 0) << out;
  const std::string id = out.substr(8, out.find('\n') - 8);
  for (const char* s : {"nan", "inf", "0", "-1"}) {
    const auto [rcode, rout] = run({"runs", "resume", id, "--seconds", s});
    EXPECT_EQ(rcode, 2) << s << ": " << rout;
    EXPECT_NE(rout.find("budget.seconds"), std::string::npos) << s << ": " << rout;
  }
  const auto [tcode, tout] = run({"runs", "resume", id, "--tournaments", "0"});
  EXPECT_EQ(tcode, 2) << tout;
  EXPECT_NE(tout.find("budget.tournaments"), std::string::npos) << tout;
}

TEST(Cli, ConfigErrorsNameTheFieldAndExitTwo) {
  const std::string binary = std::string(MIXFORGE_BINARY_DIR) + "/cli/mixforge";
  const mixforge::test::TempDir tmp("clicfg");
  const auto dir = tmp.path();
  const auto cfg = dir / "run.json";
  {
    std::ofstream f(cfg);
    f << R"({"width": 8, "early_reject": {"margin": -3}})";
  }
  Process c = spawn({binary, "evolve", "--config", cfg.string(), "--data", (dir / "data").string()}, true);
  const std::string out = c.read_all();
  EXPECT_EQ(c.wait(), 2) << out;
  EXPECT_NE(out.find("early_reject.margin"), std::string::npos) << out;
  Process d = spawn({binary, "evolve", "--width", "99", "--data", (dir / "data").string()}, true);
  const std::string out2 = d.read_all();
  EXPECT_EQ(d.wait(), 2) << out2;
  EXPECT_NE(out2.find("width"), std::string::npos) << out2;
  {
    Process t = spawn({binary, "evolve", "--width", "8", "--tournaments", "5", "--top", "-1", "--data", (dir / "data").string()}, true);
    const std::string out = t.read_all();
    EXPECT_EQ(t.wait(), 2) << out;  // it was accepted
    EXPECT_NE(out.find("--top"), std::string::npos) << out;
  }
  for (const std::vector<std::string>& extra :
       {std::vector<std::string>{"--kind-sequence", ""},
        std::vector<std::string>{"--kind-sequence", "xsr,mul", "--min-steps", "4"}}) {
    std::vector<std::string> args{binary, "evolve", "--width", "8", "--tournaments", "5", "--data", (dir / "data").string()};
    args.insert(args.end(), extra.begin(), extra.end());
    Process k = spawn(args, true);
    const std::string out = k.read_all();
    EXPECT_EQ(k.wait(), 2) << out;
    EXPECT_NE(out.find("_sequence") == std::string::npos ? out.find("-sequence") : 0, std::string::npos) << out;
  }
  Process e = spawn({binary, "runs", "show", "nope", "--data", (dir / "data").string()}, true);
  const std::string out3 = e.read_all();
  EXPECT_EQ(e.wait(), 2) << out3;
  EXPECT_NE(out3.find("no run with id nope"), std::string::npos) << out3;
}
