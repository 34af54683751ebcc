// Security: loopback by default; a non-loopback bind needs a token (refused without
// one), and then POST/DELETE need Authorization: Bearer <token>; no CORS headers; static
// files only from the dashboard folder.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include "tests/server/daemon_process.hpp"

namespace mixforge::test {
namespace {

TEST(AuthE2E, RefusesNonLoopbackWithoutToken) {
  const fs::path dir = fresh_dir("auth");
  const auto [code, log] = Daemon::run_to_exit({"--bind", "0.0.0.0", "--port", "0", "--data", (dir / "d").string()});
  EXPECT_EQ(code, 2) << log;
  EXPECT_NE(log.find("without a token"), std::string::npos) << log;
  EXPECT_FALSE(fs::exists(dir / "d")) << "nothing is created before the check";
  const auto [code2, log2] = Daemon::run_to_exit({"--bind", "not-an-address", "--port", "0", "--token-file",
                                                  (dir / "t").string(), "--data", (dir / "d").string()});
  EXPECT_NE(code2, 0) << log2;
  fs::remove_all(dir);
}

TEST(AuthE2E, NonLoopbackBindRequiresBearerTokenForChanges) {
  const fs::path dir = fresh_dir("token");
  const fs::path token_file = dir / "token";
  // Bound to every address; reached through 127.0.0.1.
  Daemon d({"--bind", "0.0.0.0", "--token-file", token_file.string()});
  ASSERT_TRUE(fs::exists(token_file));
  struct stat st{};
  ASSERT_EQ(::stat(token_file.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  std::string token = read_file(token_file);
  while (!token.empty() && token.back() == '\n') token.pop_back();
  EXPECT_GE(token.size(), 32u);

  auto c = d.client();
  // Reads are open.
  EXPECT_EQ(c.Get("/api/v1/runs")->status, 200);
  EXPECT_EQ(c.Get("/healthz")->status, 200);
  // Changes need the token.
  auto none = c.Post("/api/v1/runs", small_run_json(8), "application/json");
  EXPECT_EQ(none->status, 401);
  EXPECT_EQ(none->get_header_value("Content-Type"), "application/problem+json");
  EXPECT_NE(none->get_header_value("WWW-Authenticate").find("Bearer"), std::string::npos);
  auto wrong = c.Post("/api/v1/runs", {{"Authorization", "Bearer " + std::string(token.size(), '0')}},
                      small_run_json(8), "application/json");
  EXPECT_EQ(wrong->status, 401);
  auto basic = c.Post("/api/v1/runs", {{"Authorization", "Basic " + token}}, small_run_json(8), "application/json");
  EXPECT_EQ(basic->status, 401);
  auto eval = c.Post("/api/v1/evaluate", R"({"program": "x ^= x >> 3;", "width": 8})", "application/json");
  EXPECT_EQ(eval->status, 401);
  EXPECT_EQ(nlohmann::json::parse(c.Get("/api/v1/runs")->body)["total"], 0) << "no run was created";
  const httplib::Headers auth = {{"Authorization", "Bearer " + token}};
  auto ok = c.Post("/api/v1/runs?start=false", auth, small_run_json(8), "application/json");
  ASSERT_EQ(ok->status, 201) << ok->body;
  const std::string id = nlohmann::json::parse(ok->body)["id"];
  EXPECT_EQ(c.Delete(("/api/v1/runs/" + id).c_str())->status, 401);
  EXPECT_EQ(c.Delete(("/api/v1/runs/" + id).c_str(), auth)->status, 204);
  // No CORS by default.
  auto cors = c.Get("/api/v1/runs", {{"Origin", "http://evil.example"}});
  EXPECT_FALSE(cors->has_header("Access-Control-Allow-Origin"));

  // The same token file is reused on restart.
  const std::string before = read_file(token_file);
  d.terminate();
  d.start();
  EXPECT_EQ(read_file(token_file), before);
  auto again = d.client().Post("/api/v1/runs?start=false", auth, small_run_json(8), "application/json");
  EXPECT_EQ(again->status, 201);
  fs::remove_all(dir);
}

TEST(AuthE2E, LoopbackNeedsNoToken) {
  Daemon d;
  auto r = d.client().Post("/api/v1/runs?start=false", small_run_json(8), "application/json");
  EXPECT_EQ(r->status, 201);
}

TEST(StaticE2E, ServesOnlyTheDashboardFolder) {
  const fs::path dir = fresh_dir("web");
  fs::create_directories(dir / "web" / "sub");
  {
    std::ofstream(dir / "web" / "index.html") << "<!doctype html><title>dash</title>";
    std::ofstream(dir / "web" / "sub" / "app.js") << "console.log(1);";
    std::ofstream(dir / "secret.txt") << "TOP-SECRET-CONTENT";
  }
  fs::create_symlink(dir / "secret.txt", dir / "web" / "link.txt");
  Daemon d({"--web", (dir / "web").string()});
  auto c = d.client();
  auto index = c.Get("/");
  ASSERT_EQ(index->status, 200);
  EXPECT_EQ(index->body, "<!doctype html><title>dash</title>");
  EXPECT_EQ(index->get_header_value("Content-Type"), "text/html; charset=utf-8");
  auto js = c.Get("/sub/app.js");
  ASSERT_EQ(js->status, 200);
  EXPECT_EQ(js->get_header_value("Content-Type"), "text/javascript; charset=utf-8");
  for (const char* bad : {"/../secret.txt", "/sub/../../secret.txt", "/%2e%2e/secret.txt",
                          "/sub/%2e%2e/%2e%2e/secret.txt", "/..%2fsecret.txt", "/link.txt", "/%00index.html",
                          "/nope.html", "/sub/../index.html"}) {
    auto r = raw_exchange(d.port(), "GET " + std::string(bad) + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
    EXPECT_TRUE(r.rfind("HTTP/1.1 404", 0) == 0 || r.rfind("HTTP/1.1 400", 0) == 0) << bad << ": " << r.substr(0, 100);
    EXPECT_EQ(r.find("TOP-SECRET-CONTENT"), std::string::npos) << bad;
  }
  EXPECT_EQ(c.Post("/index.html", "x", "text/plain")->status, 404);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace mixforge::test
