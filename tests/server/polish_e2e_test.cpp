// Runs started from seed programs (issue 52 part 4) against the real daemon: POST /runs with
// seed_programs polishes them by the exact climb, its progress arrives as SSE progress
// events (climbs), and its end is the run's best (GET /runs/{id}/best, the hall of fame).
// Bad seed programs are refused with the field named.
#include <gtest/gtest.h>

#include "server/api/schema_validator.hpp"
#include "tests/server/daemon_process.hpp"
#include "tests/server/sse_reader.hpp"

namespace mixforge::test {
namespace {

// hash-prospector's published 16-bit 2-round function [8 a3d3 7 4b2d 9] (exact chi2
// 0.0067334547638893127, tests/data/records.json), and a program one bit flip from it.
constexpr const char* published = "xsr 8, mul 0xa3d3, xsr 7, mul 0x4b2d, xsr 9";
constexpr const char* one_flip_away = "x ^= x >> 8; x *= 0xa3d3; x ^= x >> 7; x *= 0xcb2d; x ^= x >> 9;";

int status_of(httplib::Client& c, const std::string& body, nlohmann::json* problem = nullptr) {
  auto r = c.Post("/api/v1/runs", body, "application/json");
  EXPECT_TRUE(r);
  if (!r) return 0;
  if (problem) *problem = nlohmann::json::parse(r->body);
  return r->status;
}

}  // namespace

TEST(PolishE2E, ARunFromASeedProgramClimbsToTheKnownLowerFunction) {
  static const server::SchemaSet schemas;
  Daemon d;
  auto c = d.client(60);
  nlohmann::json run;
  ASSERT_EQ(status_of(c,
                      small_run_json(16, std::string(R"(, "budget": {"seconds": 3}, "seed_programs": [")") +
                                             one_flip_away + R"("])"),
                      &run),
            201)
      << run.dump();
  const std::string id = run["id"];
  EXPECT_EQ(run["config"]["seed_programs"].size(), 1u);
  // Progress events carry the climb; the last says where it ended.
  const auto events = read_events(d, "/api/v1/runs/" + id + "/events", {}, [](const std::vector<SseEvent>& es) {
    for (const SseEvent& e : es)
      if (e.event == "progress" && e.data.find("\"climbs\"") != std::string::npos &&
          e.data.find("\"done\":true") != std::string::npos)
        return true;
    return false;
  });
  const SseEvent* last = nullptr;
  for (const SseEvent& e : events)
    if (e.event == "progress" && e.data.find("\"climbs\"") != std::string::npos) last = &e;
  ASSERT_NE(last, nullptr) << events.size() << " events";
  const nlohmann::json event = nlohmann::json::parse(last->data);
  EXPECT_TRUE(schemas.check("run_event.schema.json", event).empty()) << last->data;
  const nlohmann::json& climb = event["progress"]["climbs"][0];
  EXPECT_EQ(climb["seed"], 0);
  EXPECT_TRUE(climb["done"].get<bool>());
  EXPECT_EQ(climb["moves"], 1);
  EXPECT_EQ(climb["centre"]["short"], published);
  EXPECT_NEAR(climb["centre"]["chi2_exact"].get<double>(), 0.0067334547638893127, 1e-15);

  // The climb's end is the run's best, stored like any best.
  ASSERT_TRUE(eventually([&] { return body_json(c.Get(("/api/v1/runs/" + id).c_str()))["state"] == "finished"; }));
  // A finished run's progress still says where its climbs ended (the stored checkpoint).
  const nlohmann::json ended = body_json(c.Get(("/api/v1/runs/" + id).c_str()));
  ASSERT_EQ(ended["progress"]["climbs"].size(), 1u) << ended.dump().substr(0, 2000);
  EXPECT_TRUE(ended["progress"]["climbs"][0]["done"].get<bool>());
  EXPECT_EQ(ended["progress"]["climbs"][0]["centre"]["short"], published);
  const nlohmann::json best = body_json(c.Get(("/api/v1/runs/" + id + "/best").c_str()));
  ASSERT_FALSE(best["items"].empty()) << best.dump();
  EXPECT_EQ(best["items"][0]["short"], published);
  EXPECT_TRUE(best["items"][0]["exact"].get<bool>());
  const nlohmann::json fame = body_json(c.Get("/api/v1/hall-of-fame?width=16"));
  bool in_fame = false;
  for (const auto& f : fame["items"]) in_fame = in_fame || (f["short"] == published && f["run_id"] == id);
  EXPECT_TRUE(in_fame) << fame.dump().substr(0, 2000);
}

TEST(PolishE2E, BadSeedProgramsAreRefusedWithTheirField) {
  Daemon d;
  auto c = d.client(30);
  nlohmann::json p;
  EXPECT_EQ(status_of(c, R"({"width": 16, "seed_programs": ["x ^= x >> 3;", "x ^= x >> 8;\nx *= ;"]})", &p), 422);
  EXPECT_EQ(p.value("field", ""), "/seed_programs/1") << p.dump();
  EXPECT_NE(p.value("detail", "").find("line 2, column 6"), std::string::npos) << p.dump();
  EXPECT_EQ(status_of(c, R"({"width": 16, "seed_programs": ["x ^= x >> 3; x &= 0xff;"]})", &p), 422);
  EXPECT_EQ(p.value("field", ""), "/seed_programs/0") << p.dump();
  EXPECT_EQ(status_of(c, R"({"width": 40, "seed_programs": ["x ^= x >> 3;"]})", &p), 422);
  EXPECT_EQ(p.value("field", ""), "/seed_programs/0") << p.dump();
  EXPECT_NE(p.value("detail", "").find("at most 32"), std::string::npos) << p.dump();
  EXPECT_EQ(status_of(c, R"({"seed_programs": [5]})", &p), 422);
  EXPECT_EQ(p.value("field", ""), "/seed_programs/0") << p.dump();
  EXPECT_EQ(status_of(c, R"({"seed_programs": "x ^= x >> 3;"})", &p), 422);
  EXPECT_EQ(p.value("field", ""), "/seed_programs") << p.dump();
}

}  // namespace mixforge::test
