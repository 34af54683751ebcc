// HTTP behaviour clients expect (issue 14 section 4) and the daemon's protections against
// pages in a browser (issue 8: DNS rebinding; issue 14: CSRF), against the real daemon.
#include <gtest/gtest.h>

#include "tests/server/daemon_process.hpp"

namespace mixforge::test {
namespace {

std::string create_run(httplib::Client& c, bool start = false) {
  auto r = c.Post(start ? "/api/v1/runs" : "/api/v1/runs?start=false", small_run_json(8), "application/json");
  if (!r || r->status != 201) throw std::runtime_error("create failed");
  return nlohmann::json::parse(r->body)["id"];
}

TEST(HttpBehaviourE2E, HeadMirrorsGetAndOptionsListsMethods) {
  Daemon d;
  auto c = d.client();
  const std::string id = create_run(c);
  for (const std::string& path : std::vector<std::string>{"/healthz", "/openapi.json", "/api/v1/runs", "/api/v1/runs/" + id,
                                 "/api/v1/runs/" + id + "/pool", "/api/v1/runs/" + id + "/best",
                                 "/api/v1/runs/" + id + "/history", "/api/v1/hall-of-fame", "/", "/api/v1/runs/nope"}) {
    auto get = c.Get(path.c_str());
    auto head = c.Head(path.c_str());
    ASSERT_TRUE(get && head) << path;
    EXPECT_EQ(head->status, get->status) << path;
    EXPECT_EQ(head->get_header_value("Content-Type"), get->get_header_value("Content-Type")) << path;
    // Reads that change between two calls (healthz uptime) may differ in length by a few bytes.
    if (path != "/healthz") {
      EXPECT_EQ(head->get_header_value("Content-Length"), std::to_string(get->body.size())) << path;
    }
    EXPECT_TRUE(head->body.empty()) << path;
  }
  httplib::Request o;
  o.method = "OPTIONS";
  o.path = "/api/v1/runs/" + id;
  auto opt = c.send(o);
  ASSERT_TRUE(opt);
  EXPECT_EQ(opt->status, 204);
  EXPECT_EQ(opt->get_header_value("Allow"), "GET, HEAD, DELETE, OPTIONS");
  o.path = "/api/v1/runs/" + id + "/pause";
  EXPECT_EQ(c.send(o)->get_header_value("Allow"), "POST, OPTIONS");
  auto put = c.Put("/api/v1/runs", "{}", "application/json");
  EXPECT_EQ(put->status, 405);
  EXPECT_EQ(put->get_header_value("Allow"), "POST, GET, HEAD, OPTIONS");
}

// DNS rebinding: a page on attacker.example whose name now resolves to 127.0.0.1.
TEST(HttpBehaviourE2E, ForeignHostIs421UnlessAllowed) {
  Daemon d({"--allowed-host", "mixforge.lan"});
  auto c = d.client();
  auto rebound = c.Get("/api/v1/runs", {{"Host", "attacker.example:" + std::to_string(d.port())}});
  ASSERT_TRUE(rebound);
  EXPECT_EQ(rebound->status, 421);
  EXPECT_EQ(rebound->get_header_value("Content-Type"), "application/problem+json");
  auto page = c.Get("/", {{"Host", "attacker.example"}});
  EXPECT_EQ(page->status, 421) << "the dashboard too";
  EXPECT_EQ(c.Get("/api/v1/runs", {{"Host", "mixforge.lan:" + std::to_string(d.port())}})->status, 200);
  EXPECT_EQ(c.Get("/api/v1/runs", {{"Host", "localhost:" + std::to_string(d.port())}})->status, 200);
  EXPECT_EQ(c.Get("/api/v1/runs")->status, 200);
}

// The issue's reproduction: a "simple" cross-site POST (text/plain, empty body, foreign
// Origin) must not pause the run; a JSON one from a foreign Origin neither.
TEST(HttpBehaviourE2E, CrossSiteRequestsCannotChangeAnything) {
  Daemon d;
  auto c = d.client();
  const std::string id = create_run(c, true);
  const std::string pause = "/api/v1/runs/" + id + "/pause";
  auto simple = c.Post(pause.c_str(), {{"Origin", "http://attacker.example"}}, "", "text/plain");
  ASSERT_TRUE(simple);
  EXPECT_TRUE(simple->status == 403 || simple->status == 415) << simple->status;
  auto plain = c.Post(pause.c_str(), "", "text/plain");
  EXPECT_EQ(plain->status, 415);
  auto empty = c.Post(pause.c_str(), "", "application/json");
  EXPECT_EQ(empty->status, 415) << "a JSON body is required: {}";
  auto json = c.Post(pause.c_str(), {{"Origin", "http://attacker.example"}}, "{}", "application/json");
  EXPECT_EQ(json->status, 403);
  auto del = c.Delete(("/api/v1/runs/" + id).c_str(), {{"Origin", "http://attacker.example"}});
  EXPECT_EQ(del->status, 403);
  EXPECT_EQ(nlohmann::json::parse(c.Get(("/api/v1/runs/" + id).c_str())->body)["state"], "running");
  // The dashboard's own origin may.
  const std::string own = "http://127.0.0.1:" + std::to_string(d.port());
  EXPECT_EQ(c.Post(pause.c_str(), {{"Origin", own}}, "{}", "application/json")->status, 200);
  auto cors = c.Get("/api/v1/runs", {{"Origin", "http://attacker.example"}});
  EXPECT_EQ(cors->status, 200);
  EXPECT_TRUE(cors->get_header_value("Access-Control-Allow-Origin").empty()) << "CORS is off by default";
}

TEST(HttpBehaviourE2E, ConfiguredCorsOrigins) {
  Daemon d({"--cors-origin", "https://tools.example"});
  auto c = d.client();
  const std::string id = create_run(c);
  httplib::Request pre;
  pre.method = "OPTIONS";
  pre.path = "/api/v1/runs/" + id + "/pause";
  pre.set_header("Origin", "https://tools.example");
  pre.set_header("Access-Control-Request-Method", "POST");
  pre.set_header("Access-Control-Request-Headers", "content-type");
  auto p = c.send(pre);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->status, 204);
  EXPECT_EQ(p->get_header_value("Access-Control-Allow-Origin"), "https://tools.example");
  EXPECT_EQ(p->get_header_value("Access-Control-Allow-Methods"), "POST, OPTIONS");
  EXPECT_NE(p->get_header_value("Access-Control-Allow-Headers").find("Content-Type"), std::string::npos);
  auto get = c.Get("/api/v1/runs", {{"Origin", "https://tools.example"}});
  EXPECT_EQ(get->get_header_value("Access-Control-Allow-Origin"), "https://tools.example");
  auto create = c.Post("/api/v1/runs?start=false", {{"Origin", "https://tools.example"}}, small_run_json(8), "application/json");
  EXPECT_EQ(create->status, 201);
  EXPECT_EQ(c.Post("/api/v1/runs?start=false", {{"Origin", "https://other.example"}}, small_run_json(8), "application/json")->status, 403);
}

// Issue 8 defect 4 end to end: invented method tokens do not become metric series.
TEST(HttpBehaviourE2E, MetricLabelsStayBounded) {
  Daemon d;
  for (int i = 0; i < 5; ++i)
    raw_exchange(d.port(), "BREW" + std::to_string(i) + " /api/v1/runs HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
  const std::string m = d.client().Get("/metrics")->body;
  EXPECT_EQ(m.find("BREW"), std::string::npos);
  EXPECT_NE(m.find("method=\"other\""), std::string::npos) << m.substr(0, 3000);
}

// One policy for /evaluate and /runs: a seed the schema allows in form but not in value is 422.
TEST(HttpBehaviourE2E, SeedOutOfRangeIs422Everywhere) {
  Daemon d;
  auto c = d.client();
  for (const char* body : {R"({"program": "x ^= x >> 3;", "width": 8, "samples": 1024, "seed": -1})",
                           R"({"program": "x ^= x >> 3;", "width": 8, "samples": 1024, "seed": 9007199254740992})"}) {
    auto r = c.Post("/api/v1/evaluate", body, "application/json");
    EXPECT_EQ(r->status, 422) << r->body;
    EXPECT_EQ(nlohmann::json::parse(r->body)["field"], "/seed");
  }
  auto runs = c.Post("/api/v1/runs", R"({"seed": -1})", "application/json");
  EXPECT_EQ(runs->status, 422) << runs->body;
}

// Issue 8 defect 9: an access line per request in JSON lines (never the token), run
// lifecycle lines, and the rotating file in the data directory.
TEST(HttpBehaviourE2E, JsonAccessLogAndLogFile) {
  const fs::path token_dir = fresh_dir("logtoken");
  Daemon d({"--log-format", "json", "--log-file", "daemon.log", "--token-file", (token_dir / "token").string()});
  const std::string token = read_file(token_dir / "token");
  auto c = d.client();
  c.set_bearer_token_auth(token.substr(0, token.find_first_of("\r\n")));
  const std::string id = create_run(c);
  ASSERT_EQ(c.Get(("/api/v1/runs/" + id + "/pool?limit=1").c_str())->status, 200);
  ASSERT_EQ(c.Delete(("/api/v1/runs/" + id).c_str())->status, 204);
  const auto [code, secs] = d.terminate();
  EXPECT_EQ(code, 0);
  const std::string log = d.log();
  EXPECT_EQ(log.find(token.substr(0, 16)), std::string::npos) << "the token stays out of the log";
  bool pool = false, listening = false;
  std::istringstream lines(log);
  std::string line;
  while (std::getline(lines, line)) {
    nlohmann::json j;
    ASSERT_NO_THROW(j = nlohmann::json::parse(line)) << line;
    ASSERT_TRUE(j.contains("ts") && j.contains("level") && j.contains("event")) << line;
    if (j["event"] == "listening") listening = true;
    if (j["event"] == "http.request" && j["route"] == "/api/v1/runs/{id}/pool") {
      pool = true;
      EXPECT_EQ(j["method"], "GET");
      EXPECT_EQ(j["status"], 200);
      EXPECT_GT(j["bytes"].get<int>(), 0);
      EXPECT_TRUE(j["ms"].is_number());
    }
  }
  EXPECT_TRUE(pool) << log;
  EXPECT_TRUE(listening) << log;
  EXPECT_NE(read_file(d.data() / "daemon.log").find("\"event\":\"http.request\""), std::string::npos);
  fs::remove_all(token_dir);
}

// Graceful shutdown under load: SIGTERM while exact 32-bit evaluations score and runs
// evolve: the daemon cancels the scoring at its next checkpoint and exits 0 (how long it
// takes is measured by bench/shutdown_bench.cpp, not asserted here).
TEST(HttpBehaviourE2E, SigtermUnderLoadExitsCleanly) {
  Daemon d;
  auto c = d.client();
  create_run(c, true);
  const std::string exact32 =
      R"({"program": "x ^= x >> 16; x *= 0x7feb352d; x ^= x >> 15; x *= 0x846ca68b; x ^= x >> 16;", "exact": true, "matrix": false})";
  std::vector<std::thread> clients;
  std::atomic<int> answered{0};
  for (int i = 0; i < 4; ++i)
    clients.emplace_back([&] {
      auto r = d.client().Post("/api/v1/evaluate", exact32, "application/json");
      ++answered;
    });
  ASSERT_TRUE(eventually([&] {
    auto m = c.Get("/metrics");
    return m && m->body.find("\nmixforge_evaluations_running 0") == std::string::npos;
  }));
  const auto [code, secs] = d.terminate();
  EXPECT_EQ(code, 0) << d.log();
  for (auto& t : clients) t.join();
  EXPECT_EQ(answered.load(), 4);
}

}  // namespace
}  // namespace mixforge::test
