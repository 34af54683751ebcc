// The daemon's pieces without sockets: router, query parsing, problems, schemas, the
// OpenAPI document against the real route table, static files, tokens, handlers.
#include <gtest/gtest.h>

#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include "avalanche/evaluator.hpp"
#include "evolver/manager/run_manager.hpp"
#include "server/api/api.hpp"
#include "server/http/auth.hpp"
#include "server/http/evaluation_queue.hpp"
#include "server/http/event_stream.hpp"
#include "server/http/http_policy.hpp"
#include "server/http/http_server.hpp"
#include "server/http/logging.hpp"
#include "server/http/metrics.hpp"
#include "server/http/problem.hpp"
#include "server/http/query.hpp"
#include "server/http/response_cache.hpp"
#include "server/api/embedded_schemas.hpp"
#include "server/api/schema_validator.hpp"
#include "server/http/static_files.hpp"
#include "tests/server/daemon_process.hpp"
#include "tests/server/in_process_daemon.hpp"

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
  EXPECT_EQ(r405.header("Allow"), "GET, HEAD, POST, OPTIONS");
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
  // A JSON pointer: "/" and "~" in a property's name are escaped (they were not).
  issues = s.check("run.schema.json", {{"a/b~c", 1}});
  ASSERT_FALSE(issues.empty());
  EXPECT_EQ(issues[0].pointer, "/a~1b~0c");
  issues = s.check("run.schema.json", {{"allowed_kinds", {"mul-const", "twist"}}});
  ASSERT_FALSE(issues.empty());
  EXPECT_EQ(issues[0].pointer, "/allowed_kinds/1");
  issues = s.check("evaluate_request.schema.json", nlohmann::json::object());
  ASSERT_FALSE(issues.empty());
  EXPECT_EQ(issues[0].pointer, "/program");
  // A run configuration's own JSON form is a valid configuration document.
  EXPECT_TRUE(s.check("run.schema.json", evolver::to_json(evolver::RunConfig{})).empty());
  try {
    s.validate("run.schema.json", {{"width", "x"}});
    FAIL();
  } catch (const HttpError& e) {
    EXPECT_EQ(e.status(), 422) << "well-formed JSON that the schema refuses";
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
  avalanche::Evaluator evaluator{nullptr};
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
      if (method != "parameters" && method != "head" && method != "options") {
        EXPECT_TRUE(routes.count({path, method})) << method << " " << path;
      }
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
  // RFC 9110 11.1: the scheme is case-insensitive.
  EXPECT_TRUE(auth.check("bearer " + t));
  EXPECT_TRUE(auth.check("BEARER " + t));
  EXPECT_FALSE(auth.check("Bearer" + t));
  EXPECT_FALSE(auth.check("Basic " + t));
  EXPECT_FALSE(auth.check(""));
  EXPECT_TRUE(BearerAuth(std::nullopt).check(""));
  EXPECT_TRUE(is_loopback_address("127.0.0.1"));
  EXPECT_TRUE(is_loopback_address("::1"));
  EXPECT_FALSE(is_loopback_address("0.0.0.0"));
  EXPECT_FALSE(is_loopback_address("192.168.1.2"));
  EXPECT_TRUE(is_loopback_address("127.1.2.3"));
  EXPECT_TRUE(is_loopback_address("[::1]"));
  EXPECT_TRUE(is_loopback_address("localhost"));
  // Names that only start like a loopback literal resolve wherever their owner says.
  EXPECT_FALSE(is_loopback_address("127.0.0.1.evil.example"));
  EXPECT_FALSE(is_loopback_address("127.attacker.example"));
  EXPECT_FALSE(is_loopback_address("127.0.0.1x"));
  fs::remove_all(dir);
}

// Admission happens at submit, before any thread is taken: `concurrent` jobs run, costly
// ones wait (bounded, holding no thread), the rest are refused with 429 + Retry-After.
TEST(ServerEvaluationQueue, AdmitsOrRefusesBeforeTakingAThread) {
  test::Gate gate;
  EvaluationQueue q(2, 2);
  q.set_before_scoring([&](const std::atomic<bool>& c) { gate.pass(c); });
  std::atomic<int> scored{0}, dropped{0};
  auto job = [&](bool cancelled) { (cancelled ? dropped : scored)++; };
  auto flag = [] { return std::make_shared<std::atomic<bool>>(false); };
  q.submit(false, flag(), job);
  q.submit(true, flag(), job);
  ASSERT_TRUE(gate.wait_entered(2));
  auto refused = [&](bool costly) {
    try {
      q.submit(costly, flag(), job);
    } catch (const HttpError& e) {
      EXPECT_EQ(e.status(), 429);
      EXPECT_FALSE(e.headers.empty()) << "Retry-After";
      return true;
    }
    return false;
  };
  EXPECT_TRUE(refused(false)) << "busy, cheap: no queueing";
  const auto leaving = flag();
  q.submit(true, leaving, job);
  q.submit(true, flag(), job);
  EXPECT_EQ(q.waiting(), 2u);
  EXPECT_TRUE(refused(true)) << "queue full";
  // A waiting job whose client left no longer counts and gives its place up.
  *leaving = true;
  EXPECT_EQ(q.waiting(), 1u);
  q.submit(true, flag(), job);
  EXPECT_EQ(dropped.load(), 1) << "answered as cancelled, never scored";
  EXPECT_EQ(q.running(), 2u);
  gate.release();
  ASSERT_TRUE(q.drain(60));
  EXPECT_TRUE(test::eventually([&] { return scored.load() == 4; }));
  q.close();
  try {
    q.submit(false, flag(), job);
    FAIL() << "closed";
  } catch (const HttpError& e) {
    EXPECT_EQ(e.status(), 503);
  }
}

// Shutdown: close() cancels what runs (the flag the count checks) and answers what waits.
TEST(ServerEvaluationQueue, CloseCancelsRunningAndWaitingJobs) {
  test::Gate gate;
  EvaluationQueue q(1, 1);
  q.set_before_scoring([&](const std::atomic<bool>& c) { gate.pass(c); });
  std::atomic<int> cancelled_seen{0}, dropped{0};
  const auto running = std::make_shared<std::atomic<bool>>(false);
  // A started job scores (cancelled false) and its count watches the flag.
  q.submit(true, running, [&](bool) {
    if (running->load()) cancelled_seen++;
  });
  ASSERT_TRUE(gate.wait_entered(1));
  q.submit(true, std::make_shared<std::atomic<bool>>(false), [&](bool cancelled) {
    if (cancelled) dropped++;
  });
  q.close();  // the gate opens through the cancel flag, nothing else releases it
  EXPECT_TRUE(running->load());
  ASSERT_TRUE(q.drain(60));
  EXPECT_EQ(cancelled_seen.load(), 1);
  EXPECT_EQ(dropped.load(), 1);
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

// Issue 8 defect 4: a client inventing method tokens must not create series.
TEST(ServerMetrics, LabelsComeFromAFixedSet) {
  Metrics m;
  for (int i = 0; i < 100; ++i) m.observe("unmatched", "X" + std::to_string(i), 400, 0.001);
  m.observe("unmatched", "GET\"}evil", 400, 0.001);
  m.observe("/r", "DELETE", 204, 0.001);
  const std::string t = m.render_http();
  EXPECT_NE(t.find("mixforge_http_requests_total{route=\"unmatched\",method=\"other\",status=\"400\"} 101"),
            std::string::npos)
      << t;
  EXPECT_EQ(t.find("X1"), std::string::npos);
  EXPECT_EQ(t.find("evil"), std::string::npos);
  EXPECT_NE(t.find("method=\"DELETE\""), std::string::npos);
  EXPECT_EQ(bounded_method("PATCH"), "PATCH");
  EXPECT_EQ(bounded_method("get"), "other");
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

// Issue 14 section 4: HEAD on every GET route, OPTIONS with Allow on every known path.
TEST(ServerRouter, HeadAndOptions) {
  Router router;
  router.add("GET", "/api/v1/things/{id}", [](const Request& r) { return Response::text(200, "thing " + r.param("id")); });
  router.add("DELETE", "/api/v1/things/{id}", [](const Request&) { return Response::text(204, ""); });
  router.add("POST", "/api/v1/make", [](const Request&) { return Response::text(201, "made"); });
  auto head = router.handle(make("HEAD", "/api/v1/things/7"));
  EXPECT_EQ(head.status, 200);
  EXPECT_EQ(head.body, "thing 7") << "the server drops the body, keeping its length";
  auto options = router.handle(make("OPTIONS", "/api/v1/things/7"));
  EXPECT_EQ(options.status, 204);
  EXPECT_EQ(options.header("Allow"), "GET, HEAD, DELETE, OPTIONS");
  EXPECT_EQ(router.handle(make("OPTIONS", "/api/v1/make")).header("Allow"), "POST, OPTIONS");
  EXPECT_EQ(router.handle(make("OPTIONS", "/api/v1/nothing")).status, 404);
  EXPECT_EQ(router.handle(make("HEAD", "/api/v1/make")).status, 405);
  EXPECT_EQ(router.handle(make("PUT", "/api/v1/things/7")).header("Allow"), "GET, HEAD, DELETE, OPTIONS");
}

// Every API route answers HEAD where it answers GET, and OPTIONS (real route table).
TEST_F(ServerApi, EveryGetRouteAnswersHeadAndEveryPathOptions) {
  for (const Route& r : router.routes()) {
    if (r.method != "GET" || r.pattern.find('{') != std::string::npos) continue;
    auto get = router.handle(make("GET", r.pattern));
    auto head = router.handle(make("HEAD", r.pattern));
    EXPECT_EQ(head.status, get.status) << r.pattern;
    EXPECT_EQ(head.content_type, get.content_type) << r.pattern;
  }
  for (const Route& r : router.routes()) {
    std::string path = r.pattern;
    for (auto at = path.find('{'); at != std::string::npos; at = path.find('{'))
      path.replace(at, path.find('}', at) - at + 1, "x");
    auto o = router.handle(make("OPTIONS", path));
    EXPECT_EQ(o.status, 204) << path;
    EXPECT_NE(o.header("Allow").find(r.method), std::string::npos) << path;
  }
}

Request from(std::string method, std::string path, std::map<std::string, std::string> headers, std::string body = "{}") {
  Request r = make(std::move(method), std::move(path), std::move(body));
  for (auto& [k, v] : headers) r.headers[k] = v;
  return r;
}

// Issue 8 defect 6: DNS rebinding. The Host must be the bound address, a localhost name
// or an allowed host.
TEST(ServerHttpPolicy, HostMustBeOursOr421) {
  HttpPolicy loopback({"127.0.0.1", {"mixforge.lan"}, {}});
  for (const char* h : {"127.0.0.1:8080", "localhost:8080", "LOCALHOST", "[::1]:8080", "app.localhost", "mixforge.lan:80", "127.0.0.1", "127.0.0.2:8080"})
    EXPECT_FALSE(loopback.check_host(from("GET", "/api/v1/runs", {{"host", h}}))) << h;
  for (const char* h : {"attacker.example", "attacker.example:8080", "10.0.0.5:8080", "localhost.attacker.example",
                        // DNS rebinding names that start like a loopback literal
                        "127.0.0.1.evil.example:8080", "127.attacker.example", "127.0.0.1.nip.io"}) {
    auto r = loopback.check_host(from("GET", "/api/v1/runs", {{"host", h}}));
    ASSERT_TRUE(r) << h;
    EXPECT_EQ(r->status, 421);
    EXPECT_EQ(r->content_type, "application/problem+json");
  }
  EXPECT_FALSE(loopback.check_host(from("GET", "/", {}))) << "no Host: not a browser";
  HttpPolicy any({"0.0.0.0", {}, {}});
  EXPECT_FALSE(any.check_host(from("GET", "/", {{"host", "192.168.1.20:8080"}})));
  EXPECT_TRUE(any.check_host(from("GET", "/", {{"host", "rebind.attacker.example"}})));
  HttpPolicy star({"127.0.0.1", {"*"}, {}});
  EXPECT_FALSE(star.check_host(from("GET", "/", {{"host", "anything.example"}})));
}

// Issue 14: cross-site request forgery. POST needs a JSON body with its content type;
// POST and DELETE from a foreign Origin are refused.
TEST(ServerHttpPolicy, CsrfOriginAndContentType) {
  HttpPolicy p({"127.0.0.1", {}, {"https://tools.example"}});
  Route post;
  post.method = "POST";
  Route del;
  del.method = "DELETE";
  Route get;
  get.method = "GET";
  const std::map<std::string, std::string> own = {{"host", "127.0.0.1:8080"}, {"origin", "http://127.0.0.1:8080"}};
  EXPECT_FALSE(p.check_request(from("POST", "/x", own), post));
  EXPECT_FALSE(p.check_request(from("POST", "/x", {{"host", "127.0.0.1:8080"}}), post)) << "no Origin: not a page";
  auto foreign = from("POST", "/x", {{"host", "127.0.0.1:8080"}, {"origin", "http://attacker.example"}});
  ASSERT_TRUE(p.check_request(foreign, post));
  EXPECT_EQ(p.check_request(foreign, post)->status, 403);
  foreign.method = "DELETE";
  EXPECT_EQ(p.check_request(foreign, del)->status, 403);
  EXPECT_FALSE(p.check_request(from("GET", "/x", {{"origin", "http://attacker.example"}}), get)) << "reads are CORS's business";
  EXPECT_FALSE(p.check_request(from("POST", "/x", {{"host", "127.0.0.1:8080"}, {"origin", "https://tools.example"}}), post));
  // The simple request a page can send without a preflight: text/plain, empty body.
  auto simple = from("POST", "/x", {{"host", "127.0.0.1:8080"}, {"content-type", "text/plain"}}, "");
  EXPECT_EQ(p.check_request(simple, post)->status, 415);
  auto form = from("POST", "/x", {{"content-type", "application/x-www-form-urlencoded"}}, "a=1");
  EXPECT_EQ(p.check_request(form, post)->status, 415);
  auto empty_json = from("POST", "/x", {}, "");
  EXPECT_EQ(p.check_request(empty_json, post)->status, 415) << "a JSON body ({}) is required";
  auto charset = from("POST", "/x", {{"content-type", "Application/JSON; charset=utf-8"}}, "{}");
  EXPECT_FALSE(p.check_request(charset, post));
  auto no_type = from("POST", "/x", {}, "{}");
  no_type.headers.erase("content-type");
  EXPECT_EQ(p.check_request(no_type, post)->status, 415);
}

TEST(ServerHttpPolicy, CorsOnlyForConfiguredOrigins) {
  HttpPolicy off({"127.0.0.1", {}, {}});
  EXPECT_TRUE(off.cors_headers(from("GET", "/x", {{"origin", "https://tools.example"}}), "").empty());
  HttpPolicy on({"127.0.0.1", {}, {"https://tools.example/"}});
  auto h = on.cors_headers(from("GET", "/x", {{"origin", "https://tools.example"}}), "");
  ASSERT_FALSE(h.empty());
  EXPECT_EQ(h[0], (std::pair<std::string, std::string>{"Access-Control-Allow-Origin", "https://tools.example"}));
  auto pre = on.cors_headers(from("OPTIONS", "/x", {{"origin", "https://tools.example"}, {"access-control-request-method", "POST"}}),
                             "POST, OPTIONS");
  bool methods = false;
  for (const auto& [k, v] : pre) methods |= k == "Access-Control-Allow-Methods" && v == "POST, OPTIONS";
  EXPECT_TRUE(methods);
  EXPECT_TRUE(on.cors_headers(from("GET", "/x", {{"origin", "https://other.example"}}), "").empty());
}

// Issue 8 defect 9: many threads logging at once give whole lines, in both formats.
TEST(ServerLog, ConcurrentLinesStayWhole) {
  const fs::path dir = fresh_dir("log");
  for (LogFormat format : {LogFormat::json, LogFormat::text}) {
    const fs::path file = dir / (format == LogFormat::json ? "json.log" : "text.log");
    {
      LogOptions o;
      o.format = format;
      o.to_stderr = false;
      o.file = file;
      Log log(o);
      std::vector<std::thread> threads;
      for (int t = 0; t < 8; ++t)
        threads.emplace_back([&log, t] {
          for (int i = 0; i < 500; ++i)
            log.info("test.line", {{"thread", t}, {"i", i}, {"text", std::string(200, static_cast<char>('a' + t)) + " \"quoted\"\nnewline"}});
        });
      for (auto& th : threads) th.join();
    }
    std::ifstream in(file);
    std::string line;
    int lines = 0;
    while (std::getline(in, line)) {
      ++lines;
      if (format == LogFormat::json) {
        const auto j = nlohmann::json::parse(line);  // throws on a torn line
        EXPECT_EQ(j["event"], "test.line");
        EXPECT_EQ(j["level"], "info");
        EXPECT_EQ(j["text"].get<std::string>().size(), 200u + 17u);
      } else {
        EXPECT_NE(line.find(" info test.line i="), std::string::npos) << line;
        EXPECT_NE(line.find("\\nnewline\" thread="), std::string::npos) << line;
      }
    }
    EXPECT_EQ(lines, 8 * 500);
  }
  fs::remove_all(dir);
}

// Issue 8 defect 3: event-stream clients that stop reading are dropped after the write
// timeout and their slots freed; a client that reads gets everything.
TEST(ServerHttp, StalledEventStreamClientsAreDroppedAndTheirSlotsFreed) {
  constexpr std::size_t max_clients = 64;
  constexpr int frames = 32, frame_bytes = 16 << 10;  // 512 KiB per client: more than the socket buffers hold
  std::mutex mu;
  std::vector<std::weak_ptr<SseClient>> streams;
  std::atomic<int> opened{0};
  Router router;
  router.add("GET", "/api/v1/stream", [&](const Request&) {
    std::lock_guard lk(mu);
    std::erase_if(streams, [](const std::weak_ptr<SseClient>& w) { return w.expired(); });
    if (streams.size() >= max_clients) throw HttpError(429, "too-many-event-streams", "full");
    auto c = std::make_shared<SseClient>("r");
    for (int i = 0; i < frames; ++i) c->push(EventHub::frame(0, "blob", std::string(frame_bytes, 'x')));
    streams.push_back(c);
    ++opened;
    Response r;
    r.stream = c;
    return r;
  });
  Metrics metrics;
  LogOptions lo;
  lo.level = LogLevel::error;
  Log log(lo);
  WorkerPool read(1), control(1);
  EvaluationQueue scoring(1, 0);
  HttpServerOptions so;
  so.port = 0;
  so.sse_write_timeout_s = 0.2;
  HttpServer server(so, router, Lanes{read, control, scoring}, metrics, log);
  std::thread io([&] { server.run(); });
  const std::string get = "GET /api/v1/stream HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
  std::vector<int> stalled;
  for (std::size_t i = 0; i < max_clients + 8; ++i) {
    const int fd = test::connect_loopback(server.port(), 4096);
    ::send(fd, get.data(), get.size(), MSG_NOSIGNAL);
    stalled.push_back(fd);  // never read
  }
  EXPECT_TRUE(test::eventually([&] { return opened.load() >= static_cast<int>(max_clients); }));
  EXPECT_TRUE(test::eventually([&] { return metrics.sse_dropped_total() >= max_clients; }));
  // A normal client gets its stream, all of it.
  const int fd = test::connect_loopback(server.port());
  ::send(fd, get.data(), get.size(), MSG_NOSIGNAL);
  std::string got;
  char buf[65536];
  for (;;) {
    const auto n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    got.append(buf, static_cast<std::size_t>(n));
    if (got.size() >= static_cast<std::size_t>(frames) * frame_bytes) break;
  }
  ::close(fd);
  EXPECT_EQ(got.rfind("HTTP/1.1 200", 0), 0u) << got.substr(0, 200);
  EXPECT_GE(got.size(), static_cast<std::size_t>(frames) * frame_bytes);
  for (int s : stalled) ::close(s);
  server.stop();
  io.join();
}

}  // namespace
}  // namespace mixforge::server
