// Lifecycle for real: SIGTERM checkpoints and exits 0, and the runs resume on restart;
// SIGKILL at an arbitrary moment leaves every run and its hall of fame intact and a
// database that passes PRAGMA integrity_check.
#include <gtest/gtest.h>

#include <cstdio>
#include <random>

#include "tests/server/daemon_process.hpp"

namespace mixforge::test {
namespace {

// The sqlite3 shell's answer to one statement (stdout and stderr), without trailing newlines.
std::string sqlite(const fs::path& db, const std::string& sql) {
  std::string out = run_command({"sqlite3", db.string(), sql}).output;
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

nlohmann::json get(const Daemon& d, const std::string& path) {
  auto r = d.client().Get(path.c_str());
  if (!r) throw std::runtime_error("no response for " + path);
  return nlohmann::json::parse(r->body);
}

TEST(DurabilityE2E, SigtermCheckpointsExitsZeroAndRunsResume) {
  Daemon d;
  auto c = d.client();
  std::vector<std::string> ids;
  for (int i = 0; i < 2; ++i) {
    auto r = c.Post("/api/v1/runs", small_run_json(16), "application/json");
    ASSERT_EQ(r->status, 201);
    ids.push_back(nlohmann::json::parse(r->body)["id"]);
  }
  // A third run, paused by request: it must not be resumed by a restart.
  auto p = c.Post("/api/v1/runs", small_run_json(16), "application/json");
  const std::string paused = nlohmann::json::parse(p->body)["id"];
  ASSERT_EQ(c.Post(("/api/v1/runs/" + paused + "/pause").c_str(), "{}", "application/json")->status, 200);
  // 300 tournaments, so that a run restarted from zero could not reach its count by the first
  // read after the restart. Under TSan on two busy cores a 16-bit run plays 3-5 a second (one
  // CI run missed 300 within the default 60 s), hence the longer wait.
  ASSERT_TRUE(
      eventually([&] { return get(d, "/api/v1/runs/" + ids[1])["counters"]["tournaments"].get<long>() > 300; }, 300));
  std::map<std::string, long> at_stop;
  for (const auto& id : ids) at_stop[id] = get(d, "/api/v1/runs/" + id)["counters"]["tournaments"].get<long>();
  const auto [code, seconds] = d.terminate(SIGTERM);
  EXPECT_EQ(code, 0) << d.log();
  std::printf("[ measured ] SIGTERM to exit: %.2f s\n", seconds);
  d.start();
  for (const auto& id : ids) {
    const auto run = get(d, "/api/v1/runs/" + id);
    EXPECT_EQ(run["state"], "running") << run.dump().substr(0, 300);
    EXPECT_TRUE(run["active"].get<bool>());
    EXPECT_GE(run["counters"]["tournaments"].get<long>(), at_stop.at(id)) << "continues from its checkpoint";
  }
  EXPECT_FALSE(get(d, "/api/v1/runs/" + paused)["active"].get<bool>());
  EXPECT_NE(d.log().find("run.resumed run=" + ids[0]), std::string::npos) << d.log();
}

// A run whose budget (here a resume's) is spent keeps running while its background ranker
// finishes the exact score in flight (a 32-bit one on the run's one thread takes seconds).
// A SIGTERM in that window ends the run as finished: the next start must not continue it
// (it did, with the run's own budget, here none: it ran until stopped).
TEST(DurabilityE2E, ARunWhoseBudgetIsSpentEndsAtAShutdownAndIsNotResumed) {
  Daemon d;
  auto c = d.client();
  auto r = c.Post("/api/v1/runs?start=false",
                  R"({"width": 32, "pool_size": 32, "threads": 1, "precision": {"leader_interval": 50}})",
                  "application/json");
  ASSERT_EQ(r->status, 201) << r->body;
  const std::string id = nlohmann::json::parse(r->body)["id"];
  const std::string path = "/api/v1/runs/" + id;
  r = c.Post((path + "/resume").c_str(), R"({"budget": {"tournaments": 150}})", "application/json");
  ASSERT_EQ(r->status, 200) << r->body;
  // The workers stop at 150 tournaments; the leader round at 50 started an exact score.
  nlohmann::json run;
  ASSERT_TRUE(eventually(
      [&] {
        run = get(d, path);
        return run["state"] != "running" || run["counters"]["tournaments"].get<long>() >= 150;
      },
      240))
      << run.dump().substr(0, 300);
  ASSERT_EQ(run["state"], "running") << "the exact score ended before the shutdown: nothing to check here";
  const auto [code, seconds] = d.terminate(SIGTERM);
  EXPECT_EQ(code, 0) << d.log();
  EXPECT_NE(d.log().find("run.state run=" + id + " state=finished"), std::string::npos) << d.log();
  d.start();
  run = get(d, path);
  EXPECT_EQ(run["state"], "finished") << run.dump().substr(0, 300);
  EXPECT_FALSE(run["active"].get<bool>());
  EXPECT_EQ(d.log().find("run.resumed run=" + id), std::string::npos) << d.log();
}

// A resume's budget is the run's for that session (its own, here none, stays in the config).
// A SIGTERM before it is spent must not lose it: the next start continues the session with
// what is left of it (it continued with the run's own budget counted afresh: forever).
// 20000 tournaments: a release build plays about 1300 a second on one thread, enough time
// to stop it halfway.
TEST(DurabilityE2E, ARestartContinuesTheBudgetOfTheResumeBeforeIt) {
  constexpr long budget = 20000;
  Daemon d;
  auto c = d.client();
  auto r = c.Post("/api/v1/runs", small_run_json(16), "application/json");
  ASSERT_EQ(r->status, 201) << r->body;
  const std::string id = nlohmann::json::parse(r->body)["id"];
  const std::string path = "/api/v1/runs/" + id;
  ASSERT_TRUE(eventually([&] { return get(d, path)["counters"]["tournaments"].get<long>() > 100; }, 300));
  ASSERT_EQ(c.Post((path + "/stop").c_str(), "{}", "application/json")->status, 200);
  const long at_resume = get(d, path)["counters"]["tournaments"].get<long>();
  r = c.Post((path + "/resume").c_str(), R"({"budget": {"tournaments": 20000}})", "application/json");
  ASSERT_EQ(r->status, 200) << r->body;
  nlohmann::json run;
  ASSERT_TRUE(eventually(
      [&] {
        run = get(d, path);
        return run["state"] != "running" || run["counters"]["tournaments"].get<long>() - at_resume >= budget / 10;
      },
      300))
      << run.dump().substr(0, 300);
  ASSERT_EQ(run["state"], "running") << "the budget was spent before the shutdown: nothing to check here";
  const auto [code, seconds] = d.terminate(SIGTERM);
  EXPECT_EQ(code, 0) << d.log();
  d.start();
  EXPECT_NE(d.log().find("run.resumed run=" + id), std::string::npos) << d.log();
  // Until it ends, or clearly plays past the budget (the run's own budget is none).
  ASSERT_TRUE(eventually(
      [&] {
        run = get(d, path);
        return run["state"] != "running" || run["counters"]["tournaments"].get<long>() - at_resume > 2 * budget;
      },
      280))
      << run.dump().substr(0, 300);
  EXPECT_EQ(run["state"], "finished") << run.dump().substr(0, 300);
  const long played = run["counters"]["tournaments"].get<long>() - at_resume;
  EXPECT_GE(played, budget);
  EXPECT_LE(played, budget + 64) << "a worker step overshoots by a few tournaments at most";
  EXPECT_FALSE(run["config"]["budget"].is_object() && run["config"]["budget"].contains("tournaments"))
      << "the resume's budget is not written into the config: " << run["config"].dump();
}

TEST(DurabilityE2E, KillNineAtAnyMomentAndRestart) {
  Daemon d;
  auto c = d.client();
  std::vector<std::string> ids;
  for (int w : {8, 16}) {
    auto r = c.Post("/api/v1/runs", small_run_json(w), "application/json");
    ASSERT_EQ(r->status, 201);
    ids.push_back(nlohmann::json::parse(r->body)["id"]);
  }
  std::mt19937 rng(12345);
  for (int round = 0; round < 3; ++round) {
    // Wait until both runs have a hall of fame, then let them run a random while.
    ASSERT_TRUE(eventually([&] {
      for (const auto& id : ids)
        if (get(d, "/api/v1/hall-of-fame?run_id=" + id)["items"].empty()) return false;
      return true;
    }));
    std::map<std::string, std::size_t> fame;
    for (const auto& id : ids) fame[id] = get(d, "/api/v1/hall-of-fame?run_id=" + id + "&limit=1000")["items"].size();
    std::this_thread::sleep_for(std::chrono::milliseconds(200 + rng() % 1500));
    d.kill9();
    const fs::path db = d.data() / "mixforge.db";
    EXPECT_EQ(sqlite(db, "PRAGMA integrity_check;"), "ok") << "round " << round;
    d.start();
    for (const auto& id : ids) {
      const auto run = get(d, "/api/v1/runs/" + id);
      ASSERT_EQ(run["id"], id) << run.dump();
      EXPECT_TRUE(run["active"].get<bool>()) << "resumed after the kill";
      EXPECT_TRUE(run["best"].is_object());
      const auto hof = get(d, "/api/v1/hall-of-fame?run_id=" + id + "&limit=1000");
      EXPECT_GE(hof["items"].size(), fame[id]) << "hall of fame intact";
      EXPECT_FALSE(get(d, "/api/v1/runs/" + id + "/pool?limit=5")["items"].empty());
    }
  }
  d.terminate();
  EXPECT_EQ(sqlite(d.data() / "mixforge.db", "PRAGMA integrity_check;"), "ok");
}

}  // namespace
}  // namespace mixforge::test
