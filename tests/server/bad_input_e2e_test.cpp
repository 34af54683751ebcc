// The bad-input corpus: every case answers 4xx with an RFC 9457 problem naming the field
// (JSON pointer / ?query / header) or the program's line and column; the daemon stays
// up and no run is half-created.
#include <gtest/gtest.h>

#include "server/api/schema_validator.hpp"
#include "tests/server/daemon_process.hpp"

namespace mixforge::test {
namespace {

struct Case {
  std::string method, path, body;
  int status;
  std::string field = "*";  // "*": any (or none); else the problem's "field" must equal it
  int line = 0;             // > 0: the problem must name this line (and a column)
  std::string content_type = "application/json";
};

std::string repeat(const std::string& s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

std::vector<Case> corpus(const std::string& run, const std::string& fn) {
  const std::string R = "/api/v1/runs";
  const std::string E = "/api/v1/evaluate";
  const std::string X = "/api/v1/export";
  const std::string RU = R + "/" + run;
  const std::string FN = "/api/v1/functions/" + fn;
  return {
      // Malformed JSON.
      {"POST", R, "", 415, ""},  // a JSON body is required (CSRF: no "simple" request)
      {"POST", R, "{", 400, "*", 1},
      {"POST", R, "{\"width\": 16,\n \"pool_size\": }", 400, "*", 2},
      {"POST", R, "[1, 2", 400, "*", 1},
      {"POST", R, "{} trailing", 400, "*", 1},
      {"POST", R, "{\"name\": \"\xff\"}", 400, "*", 1},
      {"POST", R, "{\"seed\": 1e400}", 400},
      {"POST", R, "{'width': 16}", 400, "*", 1},
      {"POST", R, repeat("[", 100000), 400},
      {"POST", R, "{\"name\": " + repeat("[", 50000) + repeat("]", 50000) + "}", 422, "/name"},
      {"POST", R, "{\"width\": 16}", 415, "content-type", 0, "text/plain"},
      {"POST", R, "width=16", 415, "content-type", 0, "application/x-www-form-urlencoded"},
      // Schema violations of the run configuration.
      // Well-formed JSON that the schema refuses: 422.
      {"POST", R, "null", 422, ""},
      {"POST", R, "[]", 422, ""},
      {"POST", R, "\"run\"", 422, ""},
      {"POST", R, "42", 422, ""},
      {"POST", R, R"({"width": "32"})", 422, "/width"},
      {"POST", R, R"({"width": 0})", 422, "/width"},
      {"POST", R, R"({"width": 65})", 422, "/width"},
      {"POST", R, R"({"width": 32.5})", 422, "/width"},
      {"POST", R, R"({"max_steps": 0})", 422, "/max_steps"},
      {"POST", R, R"({"max_steps": 65})", 422, "/max_steps"},
      {"POST", R, R"({"min_steps": -1})", 422, "/min_steps"},
      {"POST", R, R"({"pool_size": 1})", 422, "/pool_size"},
      {"POST", R, R"({"pool_size": 10000001})", 422, "/pool_size"},
      {"POST", R, R"({"unknown": 1})", 422, "/unknown"},
      {"POST", R, R"({"width": 16, "Width": 16})", 422, "/Width"},
      {"POST", R, R"({"mutation": {"swapp": 1}})", 422, "/mutation/swapp"},
      {"POST", R, R"({"mutation": {"swap": -1}})", 422, "/mutation/swap"},
      {"POST", R, R"({"mutation": 3})", 422, "/mutation"},
      {"POST", R, R"({"early_reject": {"confidence": 1}})", 422, "/early_reject/confidence"},
      {"POST", R, R"({"early_reject": {"confidence": 0.5}})", 422, "/early_reject/confidence"},
      {"POST", R, R"({"early_reject": {"first_samples": 10}})", 422, "/early_reject/first_samples"},
      {"POST", R, R"({"early_reject": {"growth": 1}})", 422, "/early_reject/growth"},
      {"POST", R, R"({"early_reject": {"enabled": "yes"}})", 422, "/early_reject/enabled"},
      {"POST", R, R"({"early_reject": []})", 422, "/early_reject"},
      {"POST", R, R"({"precision": {"exact_max_width": 33}})", 422, "/precision/exact_max_width"},
      {"POST", R, R"({"precision": {"initial_samples": 1}})", 422, "/precision/initial_samples"},
      {"POST", R, R"({"precision": {"leaders": -1}})", 422, "/precision/leaders"},
      {"POST", R, R"({"precision": {"speed": 1}})", 422, "/precision/speed"},
      {"POST", R, R"({"budget": {"seconds": 0}})", 422, "/budget/seconds"},
      {"POST", R, R"({"budget": {"seconds": -5}})", 422, "/budget/seconds"},
      {"POST", R, R"({"budget": {"tournaments": 0}})", 422, "/budget/tournaments"},
      {"POST", R, R"({"budget": {"tournaments": 1.5}})", 422, "/budget/tournaments"},
      {"POST", R, R"({"budget": {"minutes": 5}})", 422, "/budget/minutes"},
      {"POST", R, R"({"budget": 5})", 422, "/budget"},
      {"POST", R, R"({"allowed_kinds": []})", 422, "/allowed_kinds"},
      {"POST", R, R"({"allowed_kinds": ["foo"]})", 422, "/allowed_kinds/0"},
      {"POST", R, R"({"allowed_kinds": ["xsr", "xsr"]})", 422, "/allowed_kinds"},
      {"POST", R, R"({"allowed_kinds": "xsr"})", 422, "/allowed_kinds"},
      {"POST", R, R"({"kind_sequence": ["mul", "bogus"]})", 422, "/kind_sequence/1"},
      {"POST", R, R"({"kind_sequence": []})", 422, "/kind_sequence"},
      {"POST", R, R"({"seed": -1})", 422, "/seed"},
      {"POST", R, R"({"seed": 18446744073709551616})", 422, "/seed"},
      {"POST", R, R"({"threads": 5000})", 422, "/threads"},
      {"POST", R, R"({"temperature": -1})", 422, "/temperature"},
      {"POST", R, R"({"fresh_rate": 2})", 422, "/fresh_rate"},
      {"POST", R, R"({"max_child_attempts": 0})", 422, "/max_child_attempts"},
      {"POST", R, R"({"name": 5})", 422, "/name"},
      {"POST", R, "{\"name\": \"" + std::string(201, 'n') + "\"}", 422, "/name"},
      // Cross-field rules (after the schema): 422 naming the field.
      {"POST", R, R"({"min_steps": 5, "max_steps": 2})", 422, "/min_steps"},
      {"POST", R, R"({"seed_programs": ["x ^= x >> 3;", "x *= ;"]})", 422, "/seed_programs/1"},
      {"POST", R, R"({"width": 16, "seed_programs": ["x ^= x >> 3; x &= 0xff;"]})", 422, "/seed_programs/0"},
      {"POST", R, R"({"width": 40, "seed_programs": ["x ^= x >> 3;"]})", 422, "/seed_programs/0"},
      {"POST", R, R"({"seed_programs": [7]})", 422, "/seed_programs/0"},
      // Query parameters of POST /runs.
      {"POST", R + "?start=perhaps", "{}", 400, "?start"},
      {"POST", R + "?begin=true", "{}", 400, "?begin"},
      // Evaluate.
      {"POST", E, "{}", 422, "/program"},
      {"POST", E, R"({"program": 5})", 422, "/program"},
      {"POST", E, R"({"program": null})", 422, "/program"},
      {"POST", E, R"({"program": ["x ^= x >> 3;"]})", 422, "/program"},
      {"POST", E, R"({"program": "x ^= x >> 0;"})", 422, "/program", 1},
      {"POST", E, R"({"program": "x *= 2;"})", 422, "/program", 1},
      {"POST", E, R"({"program": "x ^= x >> 16;\nx += ;"})", 422, "/program", 2},
      {"POST", E, R"({"program": "x ^= x >> 16;\n\nx *= 0x7feb352c;"})", 422, "/program", 3},
      {"POST", E, R"({"program": "x ^= x >> 16;\nx = x + y;"})", 422, "/program", 2},
      {"POST", E, R"({"program": "x ^= x >> 40;", "width": 32})", 422, "/program", 1},
      {"POST", E, "{\"program\": \"" + repeat("x ^= x >> 3; ", 65) + "\"}", 422, "/program", 1},
      {"POST", E, R"({"program": {"width": 32, "steps": [{"kind": "mul-const", "constant": "0x2"}]}})", 422, "/program/steps/0/constant"},
      {"POST", E, R"({"program": {"width": 32, "steps": [{"kind": "xsr", "shift": 3}, {"kind": "nope"}]}})", 422, "/program/steps/1/kind"},
      {"POST", E, R"({"program": {"width": 32}})", 422, "/program/steps"},
      {"POST", E, R"({"program": {"width": 99, "steps": []}})", 422, "/program/width"},
      {"POST", E, R"({"program": {"width": 32, "steps": [{"kind": "xsr", "shift": 16, "constant": "0x1"}]}})", 422, "/program/steps/0/constant"},
      {"POST", E, R"({"program": {"width": 8, "steps": [{"kind": "xor", "constant": "0x1ff"}]}})", 422, "/program/steps/0/constant"},
      {"POST", E, R"({"program": {"width": 32, "steps": [{"kind": "mul", "constant": "zz"}]}})", 422, "/program/steps/0/constant"},
      {"POST", E, R"({"program": {"width": 32, "steps": [{"kind": "xsr", "shift": 16}]}, "width": 16})", 422, "/width"},
      {"POST", E, R"({"program": {"width": 32, "steps": []}})", 422, "/program/steps"},
      {"POST", E, R"({"program": "x ^= x >> 3;", "width": 0})", 422, "/width"},
      {"POST", E, R"({"program": "x ^= x >> 3;", "samples": 10})", 422, "/samples"},
      {"POST", E, R"({"program": "x ^= x >> 3;", "samples": 1000000000000})", 422, "/samples"},
      {"POST", E, R"({"program": "x ^= x >> 3;", "samples": 4294967296})", 422, "/samples"},
      {"POST", E, R"({"program": "x ^= x >> 3;", "exact": "yes"})", 422, "/exact"},
      {"POST", E, R"({"program": "x ^= x >> 3;", "exact": true, "samples": 1000})", 422, "/samples"},
      {"POST", E, R"({"program": "x ^= x >> 3;", "extra": 1})", 422, "/extra"},
      {"POST", E, R"({"program": "x ^= x >> 3;", "width": 40, "exact": true})", 422, "/exact"},
      {"POST", E, R"({"program": "x ^= x >> 3;", "seed": -5})", 422, "/seed"},
      {"POST", E, R"({"program": "x ^= x >> 3;", "matrix": 1})", 422, "/matrix"},
      {"POST", E, "{\"program\": \"" + std::string(20001, ' ') + "\"}", 422, "/program"},
      {"POST", E + "?fast=1", R"({"program": "x ^= x >> 3;"})", 400, "?fast"},
      // Export.
      {"POST", X, R"({"programs": [{"program": "x ^= x >> 3;"}]})", 422, "/target"},
      {"POST", X, R"({"target": "glsl"})", 422, "/programs"},
      {"POST", X, R"({"target": "fortran", "programs": [{"program": "x ^= x >> 3;"}]})", 422, "/target"},
      {"POST", X, R"({"target": "glsl", "programs": []})", 422, "/programs"},
      {"POST", X, R"({"target": "glsl", "programs": [{"program": "x *= 2;"}]})", 422, "/programs/0/program", 1},
      {"POST", X, R"({"target": "glsl", "programs": [{"program": "x ^= x >> 3;"}, {"program": {"width": 32, "steps": [{"kind": "mul", "constant": "0x4"}]}}]})", 422, "/programs/1/program/steps/0/constant"},
      {"POST", X, R"({"target": "glsl", "programs": [{"function_id": "0000000000000000"}]})", 404, "/programs/0/function_id"},
      {"POST", X, R"({"target": "glsl", "programs": [{"program": "x ^= x >> 3;"}], "range": "sometimes"})", 422, "/range"},
      {"GET", FN + "/export", "", 400, "?target"},
      {"GET", FN + "/export?target=fortran", "", 400, "?target"},
      {"GET", FN + "/export?target=glsl&range=weird", "", 400, "?range"},
      {"GET", FN + "/export?target=glsl&colour=red", "", 400, "?colour"},
      {"GET", R + "?limit=1%00x", "", 400, "?limit"},  // its detail was cut at the NUL
      // Requests the exporter refuses name their field too (they named none).
      {"GET", FN + "/export?target=glsl&name=1bad", "", 422, "?name"},
      {"GET", FN + "/export?target=glsl&name=main", "", 422, "?name"},
      {"POST", X, R"({"target": "glsl", "programs": [{"program": "x ^= x >> 3;"}, {"program": "x *= 3;"}]})", 422, "/programs"},
      {"POST", X, R"({"target": "glsl", "programs": [{"program": "x ^= x >> 3;"}], "name": "int"})", 422, "/name"},
      {"POST", X, R"({"target": "glsl", "programs": [{"program": "x ^= x >> 3;"}], "seeded": true})", 422, "/seeded"},
      {"POST", X, R"({"target": "glsl", "programs": [{"program": "x ^= x >> 3;"}], "vec4": true, "range": "jitter"})", 422, "/range"},
      {"POST", X, R"({"target": "glsl", "programs": [{"program": "x ^= x >> 3;", "width": 16}], "range": "jitter"})", 422, "/range"},
      {"POST", X, R"({"target": "glsl", "vec4": true, "programs": [{"program": "x ^= x >> 3;"}, {"program": "x *= 3;"}]})", 422, "/programs/1"},
      {"GET", "/api/v1/functions/0123456789abcdef/export?target=glsl", "", 404},
      // Resume / pause / stop bodies.
      {"POST", RU + "/resume", R"({"budget": {"seconds": -1}})", 422, "/budget/seconds"},
      {"POST", RU + "/resume", R"({"foo": 1})", 422, "/foo"},
      {"POST", RU + "/resume", "{", 400, "*", 1},
      {"POST", RU + "/pause", R"({"x": 1})", 422, ""},
      // Unknown ids.
      {"GET", R + "/nosuchrun", "", 404},
      {"POST", R + "/nosuchrun/pause", "{}", 404},
      {"POST", R + "/nosuchrun/stop", "{}", 404},
      {"POST", R + "/nosuchrun/resume", "{}", 404},
      // State-changing requests without a JSON body (the "simple" requests a page on any
      // origin may send without a preflight): 415.
      {"POST", RU + "/pause", "", 415, "content-type", 0, "text/plain"},
      {"POST", RU + "/stop", "", 415, "", 0},
      {"DELETE", R + "/nosuchrun", "", 404},
      {"GET", R + "/nosuchrun/pool", "", 404},
      {"GET", R + "/nosuchrun/best", "", 404},
      {"GET", R + "/nosuchrun/history", "", 404},
      {"GET", R + "/nosuchrun/events", "", 404},
      {"GET", R + "/" + std::string(300, 'a'), "", 404},
      {"GET", R + "/..%2F..%2Fetc", "", 404},
      {"GET", R + "/%27%3B%20DROP%20TABLE%20runs", "", 404},
      {"GET", "/api/v1/functions/xyz", "", 404},
      {"GET", "/api/v1/functions/0123456789abcdef", "", 404},
      {"GET", "/api/v1/hall-of-fame?run_id=nope", "", 404},
      // Query parameters.
      {"GET", R + "?limit=0", "", 400, "?limit"},
      {"GET", R + "?limit=abc", "", 400, "?limit"},
      {"GET", R + "?limit=1001", "", 400, "?limit"},
      {"GET", R + "?limit=10x", "", 400, "?limit"},
      {"GET", R + "?offset=-1", "", 400, "?offset"},
      {"GET", R + "?state=zombie", "", 400, "?state"},
      {"GET", R + "?bogus=1", "", 400, "?bogus"},
      {"GET", R + "?limit=1&limit=2", "", 400, "?limit"},
      {"GET", R + "?limit=%zz", "", 400},
      {"GET", RU + "?verbose=1", "", 400, "?verbose"},
      {"GET", RU + "/pool?order=random", "", 400, "?order"},
      {"GET", RU + "/pool?kinds=mul,foo", "", 400, "?kinds"},
      {"GET", RU + "/pool?min_steps=4&max_steps=2", "", 400, "?min_steps"},
      {"GET", RU + "/pool?desc=maybe", "", 400, "?desc"},
      {"GET", RU + "/pool?max_steps=65", "", 400, "?max_steps"},
      {"GET", RU + "/pool?uses=loop", "", 400, "?uses"},
      {"GET", RU + "/pool?max_chi2=inf", "", 400, "?max_chi2"},
      {"GET", RU + "/best?limit=-3", "", 400, "?limit"},
      {"GET", RU + "/history?since=abc", "", 400, "?since"},
      {"GET", RU + "/history?since=nan", "", 400, "?since"},
      {"GET", RU + "/events?last_event_id=-1", "", 400, "?last_event_id"},
      {"GET", "/api/v1/hall-of-fame?width=65", "", 400, "?width"},
      {"GET", "/api/v1/hall-of-fame?max_steps=0", "", 400, "?max_steps"},
      {"GET", "/healthz?x=1", "", 400, "?x"},
      {"GET", FN + "?matrix=perhaps", "", 400, "?matrix"},
      // Methods and paths.
      {"PUT", R, "{}", 405},
      {"DELETE", R, "", 405},
      {"GET", E, "", 405},
      {"PATCH", RU, "{}", 405},
      {"POST", "/healthz", "{}", 405},
      {"GET", RU + "/pause", "", 405},
      {"POST", RU + "/pool", "{}", 405},
      {"GET", "/api/v1/nothing", "", 404},
      {"GET", "/api/v2/runs", "", 404},
      {"GET", R + "/", "", 404},
      {"GET", "/api", "", 404},
  };
}

TEST(BadInputE2E, CorpusAnswersProblemsNamingTheField) {
  Daemon d;
  auto c = d.client();
  const server::SchemaSet schemas;
  // A run (not started) and a function to aim the cases at.
  auto created = c.Post("/api/v1/runs?start=false", small_run_json(8), "application/json");
  ASSERT_EQ(created->status, 201);
  const std::string run = nlohmann::json::parse(created->body)["id"];
  auto ev = c.Post("/api/v1/evaluate", R"({"program": "x ^= x >> 3;", "width": 8})", "application/json");
  ASSERT_EQ(ev->status, 200);
  // Functions come from runs; a finished tiny run gives one.
  auto fr = c.Post("/api/v1/runs", small_run_json(8, ", \"budget\": {\"tournaments\": 20}"), "application/json");
  ASSERT_EQ(fr->status, 201) << fr->body;
  const std::string frun = nlohmann::json::parse(fr->body)["id"];
  std::string fn;
  ASSERT_TRUE(eventually([&] {
    auto b = c.Get(("/api/v1/runs/" + frun + "/best?limit=1").c_str());
    const auto j = nlohmann::json::parse(b->body);
    if (j["items"].empty()) return false;
    fn = j["items"][0]["id"];
    return true;
  }));

  const auto cases = corpus(run, fn);
  ASSERT_GE(cases.size(), 100u);
  const auto runs_before = nlohmann::json::parse(c.Get("/api/v1/runs")->body)["total"].get<int>();
  for (const Case& k : cases) {
    SCOPED_TRACE(k.method + " " + k.path + " " + k.body.substr(0, 120));
    httplib::Request req;
    req.method = k.method;
    req.path = k.path;
    req.body = k.body;
    if (!k.body.empty() || k.method == "POST") req.set_header("Content-Type", k.content_type);
    auto r = c.send(req);
    ASSERT_TRUE(r) << httplib::to_string(r.error());
    EXPECT_EQ(r->status, k.status) << r->body;
    EXPECT_EQ(r->get_header_value("Content-Type"), "application/problem+json");
    nlohmann::json p;
    ASSERT_NO_THROW(p = nlohmann::json::parse(r->body)) << r->body;
    const auto issues = schemas.check("problem.schema.json", p);
    EXPECT_TRUE(issues.empty()) << r->body;
    EXPECT_EQ(p["status"], r->status);
    EXPECT_FALSE(p["detail"].get<std::string>().empty());
    if (k.path.find("%00") != std::string::npos) {
      EXPECT_NE(p["detail"].get<std::string>().find("\\u0000x\" is not an integer"), std::string::npos) << r->body;
    }
    if (k.field != "*") {
      ASSERT_TRUE(p.contains("field")) << r->body;
      EXPECT_EQ(p["field"], k.field) << r->body;
    }
    if (k.path.find("/export") != std::string::npos) {  // the API's words, not the CLI's flags
      EXPECT_EQ(p["detail"].get<std::string>().find("--"), std::string::npos) << r->body;
    }
    if (k.line > 0) {
      EXPECT_EQ(p.value("line", 0), k.line) << r->body;
      EXPECT_GE(p.value("column", 0), 1) << r->body;
    }
    if (r->status == 405) {
      EXPECT_FALSE(r->get_header_value("Allow").empty());
    }
  }
  // Nothing crashed, nothing was half-created.
  auto h = c.Get("/healthz");
  ASSERT_TRUE(h);
  EXPECT_EQ(h->status, 200);
  EXPECT_EQ(nlohmann::json::parse(c.Get("/api/v1/runs")->body)["total"].get<int>(), runs_before);
  EXPECT_TRUE(d.alive());
}

TEST(BadInputE2E, MalformedHttpAndOversizedRequests) {
  Daemon d({"--max-body", "65536"});
  // Garbage instead of HTTP.
  auto g = raw_exchange(d.port(), "GARBAGE\r\n\r\n");
  EXPECT_EQ(g.rfind("HTTP/1.1 400", 0), 0u) << g;
  EXPECT_NE(g.find("application/problem+json"), std::string::npos);
  // A malformed percent escape in the path.
  auto pct = raw_exchange(d.port(), "GET /api/v1/runs/%zz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(pct.rfind("HTTP/1.1 400", 0), 0u) << pct;
  // Headers over the limit.
  auto big = raw_exchange(d.port(), "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + std::string(20000, 'a') + "\r\n\r\n");
  EXPECT_EQ(big.rfind("HTTP/1.1 431", 0), 0u) << big.substr(0, 200);
  // A body over --max-body: 413 by Content-Length, before reading it.
  auto c = d.client();
  auto r = c.Post("/api/v1/evaluate", std::string(70000, ' '), "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 413);
  EXPECT_EQ(r->get_header_value("Content-Type"), "application/problem+json");
  // Chunked bodies are limited too.
  auto chunked = raw_exchange(d.port(),
                              "POST /api/v1/evaluate HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                              "Transfer-Encoding: chunked\r\n\r\n" +
                                  repeat("1000\r\n" + std::string(0x1000, ' ') + "\r\n", 20) + "0\r\n\r\n");
  EXPECT_EQ(chunked.rfind("HTTP/1.1 413", 0), 0u) << chunked.substr(0, 200);
  // Still serving.
  auto h = d.client().Get("/healthz");
  ASSERT_TRUE(h);
  EXPECT_EQ(h->status, 200);
}

}  // namespace
}  // namespace mixforge::test
