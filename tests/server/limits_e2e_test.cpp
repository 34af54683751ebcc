// Documented limits answered with 429: active runs, concurrent and queued evaluations;
// a queued exact evaluation whose client goes away leaves the queue unscored.
#include <gtest/gtest.h>

#include <atomic>

#include "tests/server/daemon_process.hpp"

namespace mixforge::test {
namespace {

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
  EXPECT_EQ(c.Post(("/api/v1/runs/" + idle_id + "/resume").c_str(), "", "application/json")->status, 429);
  ASSERT_EQ(c.Post(("/api/v1/runs/" + ids[0] + "/stop").c_str(), "", "application/json")->status, 200);
  EXPECT_EQ(c.Post(("/api/v1/runs/" + idle_id + "/resume").c_str(), "", "application/json")->status, 200);
}

TEST(LimitsE2E, EvaluationQueueBoundsAndCancellation) {
  // One evaluation at a time, one exact evaluation may wait.
  Daemon d({"--max-evaluations", "1", "--max-queued-exact", "1"});
  const std::string exact32 =
      R"({"program": "x ^= x >> 16; x *= 0x7feb352d; x ^= x >> 15; x *= 0x846ca68b; x ^= x >> 16;", "exact": true, "matrix": false})";
  std::atomic<int> first_status{0};
  std::thread first([&] {
    auto r = d.client(600).Post("/api/v1/evaluate", exact32, "application/json");
    first_status = r ? r->status : -1;
  });
  auto metric = [&](const std::string& name) {
    auto m = d.client().Get("/metrics");
    const auto at = m->body.find("\n" + name + " ");
    return at == std::string::npos ? -1 : std::stoi(m->body.substr(at + name.size() + 2));
  };
  ASSERT_TRUE(eventually([&] { return metric("mixforge_evaluations_running") == 1; }));
  // A cheap evaluation does not queue: the one slot is busy.
  auto busy = d.client().Post("/api/v1/evaluate", R"({"program": "x ^= x >> 3;", "width": 8})", "application/json");
  EXPECT_EQ(busy->status, 429) << busy->body;
  // A second exact one queues; its client gives up after 1 s and disconnects.
  std::thread second([&] {
    auto c = d.client(1);
    c.Post("/api/v1/evaluate", exact32, "application/json");
  });
  ASSERT_TRUE(eventually([&] { return metric("mixforge_evaluations_queued") == 1; }));
  // The queue (1) is full: a third exact one is refused.
  auto third = d.client().Post("/api/v1/evaluate", exact32, "application/json");
  EXPECT_EQ(third->status, 429) << third->body;
  second.join();
  // The abandoned one leaves the queue without being scored.
  EXPECT_TRUE(eventually([&] { return metric("mixforge_evaluations_queued") == 0; }, 30));
  first.join();
  EXPECT_EQ(first_status.load(), 200);
  auto m = d.client().Get("/metrics")->body;
  EXPECT_NE(m.find("route=\"/api/v1/evaluate\",method=\"POST\",status=\"499\""), std::string::npos) << m;
}

TEST(LimitsE2E, ARunningExactEvaluationStopsWhenItsClientGoesAway) {
  Daemon d({"--max-evaluations", "1"});
  auto metric = [&](const std::string& name) {
    auto m = d.client().Get("/metrics");
    const auto at = m->body.find("\n" + name + " ");
    return at == std::string::npos ? -1 : std::stoi(m->body.substr(at + name.size() + 2));
  };
  ASSERT_EQ(metric("mixforge_evaluations_cancelled_total"), 0);
  // triple32 exact: 2^32 inputs, seconds of work; its client gives up after 0.3 s.
  std::thread client([&] {
    httplib::Client c = d.client(1);
    c.set_read_timeout(0, 300000);
    c.Post("/api/v1/evaluate",
           R"({"program": "x ^= x >> 17; x *= 0xed5ad4bb; x ^= x >> 11; x *= 0xac4c1b51; x ^= x >> 15; x *= 0x31848bab; x ^= x >> 14;", "exact": true})",
           "application/json");
  });
  client.join();
  // The scoring stops between tiles instead of running to the end: counted as cancelled,
  // and the slot is free again.
  EXPECT_TRUE(eventually([&] { return metric("mixforge_evaluations_cancelled_total") == 1; }, 60));
  EXPECT_TRUE(eventually([&] { return metric("mixforge_evaluations_running") == 0; }, 60));
  auto ok = d.client().Post("/api/v1/evaluate", R"({"program": "x ^= x >> 3;", "width": 8})", "application/json");
  EXPECT_EQ(ok->status, 200) << ok->body;
}

}  // namespace
}  // namespace mixforge::test
