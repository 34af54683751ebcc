// The daemon's pieces without sockets: router, query parsing, problems, schemas, the
// OpenAPI document against the real route table, static files, tokens, handlers.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <fstream>

#include "avalanche/evaluator.hpp"
#include "evolver/run_manager.hpp"
#include "server/api.hpp"
#include "server/auth.hpp"
#include "server/evaluation_queue.hpp"
#include "server/event_stream.hpp"
#include "server/metrics.hpp"
#include "server/problem.hpp"
#include "server/query.hpp"
#include "server/response_cache.hpp"
#include "server/embedded_schemas.hpp"
#include "server/schema_validator.hpp"
#include "server/static_files.hpp"
#include "tests/server/daemon_process.hpp"

namespace mixforge::server {
namespace {

using test::fresh_dir;
namespace fs = std::filesystem;

Request make(std::string method, std::string target, std::string body = {}) {
  Request r;
  r.method = std::move(method);
  r.target = target;
  const auto q = target.find('?');
  r.path = *percent_decode(target.substr(0, q), false);
  if (q != std::string::npos) r.query = *parse_query(target.substr(q + 1));
  r.body = std::move(body);
  r.headers["content-type"] = "application/json";
  return r;
}

TEST(ServerRouter, MatchesParamsAnd404And405) {
  Router router;
  router.add("GET", "/a/{id}/b", [](const Request& r) { return Response::text(200, r.param("id")); });
  router.add("POST", "/a/{id}/b", [](const Request&) { return Response::text(201, "made"); });
  router.add("GET", "/fail", [](const Request&) -> Response { throw HttpError(418, "teapot", "short and stout"); });
  router.add("GET", "/boom", [](const Request&) -> Response { throw std::runtime_error("kaboom"); });
  EXPECT_EQ(router.handle(make("GET", "/a/xyz/b")).body, "xyz");
  EXPECT_EQ(router.handle(make("POST", "/a/xyz/b")).status, 201);
  auto r405 = router.handle(make("DELETE", "/a/xyz/b"));
  EXPECT_EQ(r405.status, 405);
  EXPECT_EQ(r405.header("Allow"), "GET, POST");
  EXPECT_EQ(router.handle(make("GET", "/a/xyz")).status, 404);
  EXPECT_EQ(router.handle(make("GET", "/a/xyz/b/")).status, 404);
  EXPECT_EQ(router.handle(make("GET", "/a//b")).status, 404);
  auto teapot = router.handle(make("GET", "/fail"));
  EXPECT_EQ(teapot.status, 418);
  EXPECT_EQ(teapot.content_type, "application/problem+json");
  EXPECT_EQ(nlohmann::json::parse(teapot.body)["detail"], "short and stout");
  EXPECT_EQ(router.handle(make("GET", "/boom")).status, 500);
}

TEST(ServerRouter, GuardAndFallback) {
  Router router;
  router.add("POST", "/api/x", [](const Request&) { return Response::text(200, "ok"); });
  router.set_guard([](const Request& r, const Route& route) -> std::optional<Response> {
    if (route.mutating() && r.header("authorization") != "Bearer t") return Response::text(401, "no");
    return std::nullopt;
  });
  router.set_fallback([](const Request& r) { return Response::text(200, "static " + r.path); });
  EXPECT_EQ(router.handle(make("POST", "/api/x")).status, 401);
  auto ok = make("POST", "/api/x");
  ok.headers["authorization"] = "Bearer t";
  EXPECT_EQ(router.handle(ok).status, 200);
  EXPECT_EQ(router.handle(make("GET", "/index.html")).body, "static /index.html");
  EXPECT_EQ(router.handle(make("GET", "/api/nothing")).status, 404) << "no fallback under /api";
  EXPECT_EQ(router.handle(make("POST", "/index.html")).status, 404);
}

TEST(ServerQuery, ParsesStrictly) {
  auto q = parse_query("a=1&b=x%20y&c=+z&&d=");
  ASSERT_TRUE(q);
  ASSERT_EQ(q->size(), 4u);
  EXPECT_EQ((*q)[1].second, "x y");
  EXPECT_EQ((*q)[2].second, " z");
  EXPECT_FALSE(parse_query("a=%zz"));
  EXPECT_FALSE(parse_query("a=%4"));
  EXPECT_FALSE(percent_decode("%", false));
  EXPECT_EQ(*percent_decode("a+b", false), "a+b");
  Request r = make("GET", "/x?limit=5&flag=true&num=2.5");
  QueryReader reader(r, {"limit", "flag", "num", "other"});
  EXPECT_EQ(reader.integer("limit", 1, 10), 5);
  EXPECT_EQ(reader.boolean("flag"), true);
  EXPECT_EQ(reader.number("num", 0, 3), 2.5);
  EXPECT_FALSE(reader.string("other"));
  try {
    reader.integer("limit", 6, 10);
    FAIL();
  } catch (const HttpError& e) {
    EXPECT_EQ(e.status(), 400);
    EXPECT_EQ(e.extensions()["field"], "?limit");
  }
  EXPECT_THROW(QueryReader(r, {"limit"}), HttpError);
  Request twice = make("GET", "/x?a=1&a=2");
  EXPECT_THROW(QueryReader(twice, {"a"}), HttpError);
}

TEST(ServerProblem, PointersAndBody) {
  EXPECT_EQ(path_to_pointer("steps[2].constant", "/program"), "/program/steps/2/constant");
  EXPECT_EQ(path_to_pointer("early_reject.margin"), "/early_reject/margin");
  EXPECT_EQ(path_to_pointer("(root)"), "");
  EXPECT_EQ(path_to_pointer("a/b~c"), "/a~1b~0c");
  auto r = problem_response(HttpError(422, "x", "bad").with_field("/a").with_position(3, 4), "/p");
  const auto j = nlohmann::json::parse(r.body);
  EXPECT_EQ(j["status"], 422);
  EXPECT_EQ(j["title"], "Unprocessable Content");
  EXPECT_EQ(j["field"], "/a");
  EXPECT_EQ(j["line"], 3);
  EXPECT_EQ(j["column"], 4);
  EXPECT_EQ(j["instance"], "/p");
  EXPECT_EQ(r.content_type, "application/problem+json");
}

TEST(ServerSchemas, LoadAndNameTheBadField) {
  const SchemaSet s;
  EXPECT_TRUE(s.check("run.schema.json", nlohmann::json::object()).empty());
  EXPECT_TRUE(s.check("run.schema.json", {{"width", 16}, {"budget", {{"seconds", 5}}}}).empty());
  auto issues = s.check("run.schema.json", {{"budget", {{"seconds", -1}}}});
  ASSERT_FALSE(issues.empty());
  EXPECT_EQ(issues[0].pointer, "/budget/seconds");
  issues = s.check("run.schema.json", {{"nope", 1}});
  ASSERT_FALSE(issues.empty());
  EXPECT_EQ(issues[0].pointer, "/nope");
  issues = s.check("evaluate_request.schema.json", nlohmann::json::object());
  ASSERT_FALSE(issues.empty());
  EXPECT_EQ(issues[0].pointer, "/program");
  // A run configuration's own JSON form is a valid configuration document.
  EXPECT_TRUE(s.check("run.schema.json", evolver::to_json(evolver::RunConfig{})).empty());
  try {
    s.validate("run.schema.json", {{"width", "x"}});
    FAIL();
  } catch (const HttpError& e) {
    EXPECT_EQ(e.status(), 400);
    EXPECT_EQ(e.extensions()["field"], "/width");
  }
}

TEST(ServerSchemas, JsonBodyErrorsHaveLineAndColumn) {
  Request r = make("POST", "/x", "{\n  \"a\": 1,\n  \"b\": ]\n}");
  try {
    parse_json_body(r);
    FAIL();
  } catch (const HttpError& e) {
    EXPECT_EQ(e.status(), 400);
    EXPECT_EQ(e.extensions()["line"], 3);
    EXPECT_EQ(e.extensions()["column"], 8);
  }
  r.headers["content-type"] = "text/plain";
  EXPECT_THROW(parse_json_body(r), HttpError);
}

struct ServerApi : ::testing::Test {
  fs::path dir = fresh_dir("unit");
  std::unique_ptr<evolver::RunManager> runs;
  Evaluator evaluator{nullptr};
  SchemaSet schemas;
  Metrics metrics;
  EvaluationQueue queue{2, 2};
  std::unique_ptr<EventHub> events;
  std::unique_ptr<ApiContext> ctx;
  Router router;
  void SetUp() override {
    evolver::RunManager::Options o;
    o.data_dir = dir / "data";
    o.interpreter_only = true;
    runs = std::make_unique<evolver::RunManager>(o);
    events = std::make_unique<EventHub>(*runs, 4);
    ctx = std::make_unique<ApiContext>(*runs, evaluator, queue, *events, metrics, schemas, ApiLimits{});
    add_api_routes(router, *ctx);
  }
  void TearDown() override {
    router = Router();
    ctx.reset();
    events.reset();
    runs.reset();
    fs::remove_all(dir);
  }
};

TEST_F(ServerApi, EveryRouteIsInTheOpenApiDocumentAndBack) {
  const auto doc = openapi_document();
  EXPECT_EQ(doc["openapi"], "3.1.0");
  std::set<std::pair<std::string, std::string>> routes;
  for (const Route& r : router.routes()) {
    std::string m = r.method;
    for (auto& ch : m) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    routes.insert({r.pattern, m});
    ASSERT_TRUE(doc["paths"].contains(r.pattern)) << r.pattern;
    EXPECT_TRUE(doc["paths"][r.pattern].contains(m)) << r.method << " " << r.pattern;
  }
  for (const auto& [path, item] : doc["paths"].items())
    for (const auto& [method, op] : item.items())
      // HEAD and OPTIONS are answered by the HTTP layer for every route, not routed.
      if (method != "parameters" && method != "head" && method != "options")
        EXPECT_TRUE(routes.count({path, method})) << method << " " << path;
  // Every schema the document references exists under components.
  for (const auto& [path, item] : doc["paths"].items()) {
    const std::string text = item.dump();
    std::size_t at = 0;
    while ((at = text.find("#/components/schemas/", at)) != std::string::npos) {
      const auto end = text.find('"', at);
      const std::string name = text.substr(at + 21, end - at - 21);
      EXPECT_TRUE(doc["components"]["schemas"].contains(name)) << name;
      at = end;
    }
  }
}

TEST_F(ServerApi, HandlersWithoutSockets) {
  auto created = router.handle(make("POST", "/api/v1/runs?start=false", R"({"width": 8, "pool_size": 16})"));
  ASSERT_EQ(created.status, 201) << created.body;
  const auto run = nlohmann::json::parse(created.body);
  EXPECT_TRUE(schemas.check("run_detail.schema.json", run).empty());
  auto list = router.handle(make("GET", "/api/v1/runs"));
  EXPECT_EQ(nlohmann::json::parse(list.body)["total"], 1);
  auto eval = router.handle(make("POST", "/api/v1/evaluate", R"({"program": "x ^= x >> 4; x *= 0x1d; x ^= x >> 3;", "width": 8})"));
  ASSERT_EQ(eval.status, 200) << eval.body;
  const auto ej = nlohmann::json::parse(eval.body);
  EXPECT_TRUE(schemas.check("evaluate_response.schema.json", ej).empty());
  EXPECT_TRUE(ej["score"]["exact"].get<bool>());
  auto bad = router.handle(make("POST", "/api/v1/evaluate", R"({"program": "x ^= x >> 4;\nx *= 0x1c;", "width": 8})"));
  EXPECT_EQ(bad.status, 422);
  EXPECT_EQ(nlohmann::json::parse(bad.body)["line"], 2);
  auto health = router.handle(make("GET", "/healthz"));
  EXPECT_TRUE(schemas.check("health.schema.json", nlohmann::json::parse(health.body)).empty());
  EXPECT_FALSE(nlohmann::json::parse(health.body)["jit"].get<bool>());
}

TEST(ServerStaticFiles, NoTraversal) {
  const fs::path dir = fresh_dir("static");
  fs::create_directories(dir / "web" / "a");
  std::ofstream(dir / "web" / "index.html") << "i";
  std::ofstream(dir / "web" / "a" / "f.css") << "c";
  std::ofstream(dir / "outside.txt") << "o";
  fs::create_symlink(dir / "outside.txt", dir / "web" / "out.txt");
  StaticFiles files(dir / "web");
  EXPECT_TRUE(files.resolve("/"));
  EXPECT_TRUE(files.resolve("/a/f.css"));
  EXPECT_TRUE(files.resolve("/a//f.css"));
  EXPECT_FALSE(files.resolve("/../outside.txt"));
  EXPECT_FALSE(files.resolve("/a/../index.html"));
  EXPECT_FALSE(files.resolve("/./index.html"));
  EXPECT_FALSE(files.resolve("/out.txt"));
  EXPECT_FALSE(files.resolve("/a"));  // a folder without index.html
  EXPECT_FALSE(files.resolve("relative"));
  EXPECT_FALSE(files.resolve(std::string("/index.html\0x", 13)));
  EXPECT_FALSE(StaticFiles(dir / "missing").resolve("/"));
  EXPECT_EQ(content_type_for("x.css"), "text/css; charset=utf-8");
  fs::remove_all(dir);
}

TEST(ServerAuth, TokenFileAndBearerCheck) {
  const fs::path dir = fresh_dir("tok");
  const std::string t = load_or_create_token(dir / "sub" / "token");
  EXPECT_EQ(t.size(), 64u);
  struct stat st{};
  ASSERT_EQ(::stat((dir / "sub" / "token").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_EQ(load_or_create_token(dir / "sub" / "token"), t);
  ::chmod((dir / "sub" / "token").c_str(), 0644);
  EXPECT_THROW(load_or_create_token(dir / "sub" / "token"), std::runtime_error);
  { std::ofstream(dir / "short") << "abc\n"; }
  ::chmod((dir / "short").c_str(), 0600);
  EXPECT_THROW(load_or_create_token(dir / "short"), std::runtime_error);
  BearerAuth auth(t);
  EXPECT_TRUE(auth.check("Bearer " + t));
  EXPECT_FALSE(auth.check("Bearer " + t + "x"));
  EXPECT_FALSE(auth.check("bearer " + t));
  EXPECT_FALSE(auth.check(""));
  EXPECT_TRUE(BearerAuth(std::nullopt).check(""));
  EXPECT_TRUE(is_loopback_address("127.0.0.1"));
  EXPECT_TRUE(is_loopback_address("::1"));
  EXPECT_FALSE(is_loopback_address("0.0.0.0"));
  EXPECT_FALSE(is_loopback_address("192.168.1.2"));
  fs::remove_all(dir);
}

TEST(ServerEvaluationQueue, BoundsAndCancel) {
  EvaluationQueue q(1, 1);
  std::atomic<bool> no{false};
  auto a = q.acquire(no, false);
  ASSERT_TRUE(a);
  EXPECT_THROW(q.acquire(no, false), HttpError);  // busy, cheap: no queueing
  std::atomic<bool> cancel{false};
  std::thread waiter([&] {
    auto t = q.acquire(cancel, true);
    EXPECT_FALSE(t);  // cancelled while waiting
  });
  while (q.waiting() == 0) std::this_thread::yield();
  EXPECT_THROW(q.acquire(no, true), HttpError);  // queue full
  cancel = true;
  waiter.join();
  EXPECT_EQ(q.waiting(), 0u);
  EXPECT_EQ(q.running(), 1u);
}

TEST(ServerMetrics, PrometheusText) {
  Metrics m;
  m.observe("/r", "GET", 200, 0.002);
  m.observe("/r", "GET", 200, 0.2);
  const std::string t = m.render_http();
  EXPECT_NE(t.find("mixforge_http_requests_total{route=\"/r\",method=\"GET\",status=\"200\"} 2"), std::string::npos);
  EXPECT_NE(t.find("mixforge_http_request_duration_seconds_bucket{route=\"/r\",method=\"GET\",le=\"0.0025\"} 1"), std::string::npos);
  EXPECT_NE(t.find("le=\"+Inf\"} 2"), std::string::npos);
  EXPECT_NE(t.find("# TYPE mixforge_http_request_duration_seconds histogram"), std::string::npos);
  EXPECT_EQ(label_value("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
}

TEST(ServerResponseCache, TtlAndInvalidation) {
  ResponseCache cache(60);
  cache.put("/api/v1/runs/a/pool?limit=1", Response::text(200, "a"));
  cache.put("/api/v1/runs/b/pool", Response::text(200, "b"));
  cache.put("/api/v1/runs/a/err", Response::text(404, "x"));
  EXPECT_EQ(cache.get("/api/v1/runs/a/pool?limit=1")->body, "a");
  EXPECT_FALSE(cache.get("/api/v1/runs/a/err")) << "only 200s are kept";
  cache.invalidate("/api/v1/runs/a/");
  EXPECT_FALSE(cache.get("/api/v1/runs/a/pool?limit=1"));
  EXPECT_EQ(cache.get("/api/v1/runs/b/pool")->body, "b");
  EXPECT_EQ(cache.hits(), 2u);
  ResponseCache off(0);
  off.put("k", Response::text(200, "v"));
  EXPECT_FALSE(off.get("k"));
  ResponseCache brief(0.02);
  brief.put("k", Response::text(200, "v"));
  std::this_thread::sleep_for(std::chrono::milliseconds(60));
  EXPECT_FALSE(brief.get("k")) << "expired";
}

}  // namespace
}  // namespace mixforge::server
