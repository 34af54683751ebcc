// Documented limits answered with 429: active runs, concurrent and queued evaluations.
// Scoring is admitted (or refused) before it takes a thread, and run control never waits
// behind it. The timing is held by a gate in the daemon's scoring hook, never by how
// long a computation happens to take on this machine.
#include <gtest/gtest.h>

#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <future>

#include "tests/server/daemon_process.hpp"
#include "tests/server/in_process_daemon.hpp"

namespace mixforge::test {
namespace {

// Exact 8-bit evaluation; with queue_exact_from_width 8 it counts as costly (may queue).
const std::string exact8 = R"({"program": "x ^= x >> 3; x *= 0x1d; x ^= x >> 4;", "width": 8, "exact": true, "matrix": false})";
const std::string sampled8 = R"({"program": "x ^= x >> 3;", "width": 8, "samples": 1024})";

void tight_scoring(server::DaemonOptions& o, Gate& gate, std::size_t concurrent, std::size_t queued) {
  o.limits.max_concurrent_evaluations = concurrent;
  o.limits.max_queued_exact = queued;
  o.limits.queue_exact_from_width = 8;
  o.read_threads = 1;
  o.control_threads = 1;
  o.io_threads = 1;
  o.before_scoring = [&gate](const std::atomic<bool>& cancelled) { gate.pass(cancelled); };
}

TEST(LimitsE2E, MaxRuns) {
  Daemon d({"--max-runs", "2"});
  auto c = d.client();
  std::vector<std::string> ids;
  for (int i = 0; i < 2; ++i) {
    auto r = c.Post("/api/v1/runs", small_run_json(8), "application/json");
    ASSERT_EQ(r->status, 201);
    ids.push_back(nlohmann::json::parse(r->body)["id"]);
  }
  auto third = c.Post("/api/v1/runs", small_run_json(8), "application/json");
  EXPECT_EQ(third->status, 429);
  EXPECT_EQ(third->get_header_value("Content-Type"), "application/problem+json");
  EXPECT_FALSE(third->get_header_value("Retry-After").empty());
  EXPECT_EQ(nlohmann::json::parse(c.Get("/api/v1/runs")->body)["total"], 2) << "no half-created run";
  // Created but not started does not count; starting it does.
  auto idle = c.Post("/api/v1/runs?start=false", small_run_json(8), "application/json");
  ASSERT_EQ(idle->status, 201);
  const std::string idle_id = nlohmann::json::parse(idle->body)["id"];
  EXPECT_EQ(c.Post(("/api/v1/runs/" + idle_id + "/resume").c_str(), "{}", "application/json")->status, 429);
  ASSERT_EQ(c.Post(("/api/v1/runs/" + ids[0] + "/stop").c_str(), "{}", "application/json")->status, 200);
  EXPECT_EQ(c.Post(("/api/v1/runs/" + idle_id + "/resume").c_str(), "{}", "application/json")->status, 200);
}

// Issue 8 defect 2: more concurrent evaluations than the daemon has threads of any kind.
// Exactly `concurrent` score, `queued` wait without a thread, the rest are refused with
// 429 and Retry-After at once; meanwhile run control and reads are answered.
TEST(LimitsE2E, ScoringIsAdmittedBeforeItTakesAThreadAndControlNeverWaitsBehindIt) {
  Gate gate;
  InProcessDaemon d([&](server::DaemonOptions& o) { tight_scoring(o, gate, 2, 3); });
  constexpr int n = 16;
  std::vector<std::future<std::pair<int, std::string>>> answers;
  for (int i = 0; i < n; ++i)
    answers.push_back(std::async(std::launch::async, [&] {
      auto r = d.client().Post("/api/v1/evaluate", exact8, "application/json");
      return r ? std::make_pair(r->status, r->get_header_value("Retry-After")) : std::make_pair(-1, std::string());
    }));
  ASSERT_TRUE(gate.wait_entered(2));
  // The refusals come back while the gate is still closed: nothing waits for a thread.
  int refused = 0;
  ASSERT_TRUE(eventually([&] {
    int ready = 0;
    for (auto& a : answers) ready += a.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
    return ready == n - 5;
  }));
  EXPECT_EQ(d.metric("mixforge_evaluations_running"), 2);
  EXPECT_EQ(d.metric("mixforge_evaluations_queued"), 3);
  EXPECT_EQ(gate.entered(), 2);
  // A cheap evaluation never queues: refused at once too.
  auto cheap = d.client().Post("/api/v1/evaluate", sampled8, "application/json");
  ASSERT_TRUE(cheap);
  EXPECT_EQ(cheap->status, 429);
  EXPECT_FALSE(cheap->get_header_value("Retry-After").empty());

  // Control and reads while every scoring slot and the queue are taken (a single
  // control thread and a single read thread: if they shared scoring's threads, these
  // would hang until the gate opens, and the test would time out).
  auto c = d.client(30);
  auto created = c.Post("/api/v1/runs", small_run_json(8), "application/json");
  ASSERT_TRUE(created);
  ASSERT_EQ(created->status, 201) << created->body;
  const std::string id = nlohmann::json::parse(created->body)["id"];
  EXPECT_EQ(c.Get(("/api/v1/runs/" + id).c_str())->status, 200);
  EXPECT_EQ(c.Get(("/api/v1/runs/" + id + "/pool?limit=2").c_str())->status, 200);
  EXPECT_EQ(c.Post(("/api/v1/runs/" + id + "/pause").c_str(), "{}", "application/json")->status, 200);
  EXPECT_EQ(c.Post(("/api/v1/runs/" + id + "/stop").c_str(), "{}", "application/json")->status, 200);
  EXPECT_EQ(c.Get("/api/v1/hall-of-fame")->status, 200);
  EXPECT_EQ(c.Delete(("/api/v1/runs/" + id).c_str())->status, 204);
  EXPECT_EQ(gate.entered(), 2) << "still held";

  gate.release();
  int ok = 0;
  for (auto& a : answers) {
    const auto [status, retry_after] = a.get();
    if (status == 200) ++ok;
    if (status == 429) {
      ++refused;
      EXPECT_FALSE(retry_after.empty());
    }
  }
  EXPECT_EQ(ok, 5);
  EXPECT_EQ(refused, n - 5);
}

TEST(LimitsE2E, AQueuedEvaluationWhoseClientLeavesGivesItsPlaceUpUnscored) {
  Gate gate;
  InProcessDaemon d([&](server::DaemonOptions& o) { tight_scoring(o, gate, 1, 1); });
  auto first = std::async(std::launch::async, [&] { return d.client().Post("/api/v1/evaluate", exact8, "application/json")->status; });
  ASSERT_TRUE(gate.wait_entered(1));
  // A second one queues; its client disconnects while it waits.
  const int fd = connect_loopback(d.port());
  const std::string req = "POST /api/v1/evaluate HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                          "Content-Length: " + std::to_string(exact8.size()) + "\r\n\r\n" + exact8;
  ASSERT_EQ(::send(fd, req.data(), req.size(), MSG_NOSIGNAL), static_cast<ssize_t>(req.size()));
  ASSERT_TRUE(eventually([&] { return d.metric("mixforge_evaluations_queued") == 1; }));
  // The queue (1) is full: a third is refused.
  auto third = d.client().Post("/api/v1/evaluate", exact8, "application/json");
  EXPECT_EQ(third->status, 429) << third->body;
  ::close(fd);
  EXPECT_TRUE(eventually([&] { return d.metric("mixforge_evaluations_queued") == 0; }));
  // Its place is free: another costly one is admitted to the queue.
  auto fourth = std::async(std::launch::async, [&] { return d.client().Post("/api/v1/evaluate", exact8, "application/json")->status; });
  ASSERT_TRUE(eventually([&] { return d.metric("mixforge_evaluations_queued") == 1; }));
  gate.release();
  EXPECT_EQ(first.get(), 200);
  EXPECT_EQ(fourth.get(), 200);
  EXPECT_EQ(gate.entered(), 2) << "the abandoned one was never scored";
  auto m = d.client().Get("/metrics")->body;
  EXPECT_NE(m.find("route=\"/api/v1/evaluate\",method=\"POST\",status=\"499\""), std::string::npos) << m;
}

TEST(LimitsE2E, ARunningExactEvaluationStopsWhenItsClientGoesAway) {
  Gate gate;
  InProcessDaemon d([&](server::DaemonOptions& o) { tight_scoring(o, gate, 1, 0); });
  ASSERT_EQ(d.metric("mixforge_evaluations_cancelled_total"), 0);
  // A 32-bit exact count (2^32 inputs): the hook holds it at its start until its client
  // has gone; then the count sees the flag at its first checkpoint and stops.
  const std::string exact32 =
      R"({"program": "x ^= x >> 17; x *= 0xed5ad4bb; x ^= x >> 11; x *= 0xac4c1b51; x ^= x >> 15;", "exact": true})";
  const int fd = connect_loopback(d.port());
  const std::string req = "POST /api/v1/evaluate HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                          "Content-Length: " + std::to_string(exact32.size()) + "\r\n\r\n" + exact32;
  ASSERT_EQ(::send(fd, req.data(), req.size(), MSG_NOSIGNAL), static_cast<ssize_t>(req.size()));
  ASSERT_TRUE(gate.wait_entered(1));
  ::close(fd);
  EXPECT_TRUE(eventually([&] { return d.metric("mixforge_evaluations_cancelled_total") == 1; }));
  EXPECT_TRUE(eventually([&] { return d.metric("mixforge_evaluations_running") == 0; }));
  gate.release();
  auto ok = d.client().Post("/api/v1/evaluate", R"({"program": "x ^= x >> 3;", "width": 8})", "application/json");
  EXPECT_EQ(ok->status, 200) << ok->body;
}

}  // namespace
}  // namespace mixforge::test
