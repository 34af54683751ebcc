// The whole API against the real daemon; every JSON answer is checked against its schema.
#include <gtest/gtest.h>

#include "avalanche/evaluator.hpp"
#include "mixer/text_form.hpp"
#include "server/api/schema_validator.hpp"
#include "support/reference_functions.hpp"
#include "tests/server/daemon_process.hpp"

namespace mixforge::test {
namespace {

const server::SchemaSet& schemas() {
  static const server::SchemaSet s;
  return s;
}

#define EXPECT_SCHEMA(schema, json)                                                        \
  do {                                                                                     \
    const auto issues_ = schemas().check(schema, json);                                    \
    EXPECT_TRUE(issues_.empty()) << schema << ": " << (issues_.empty() ? "" : issues_[0].pointer + " " + issues_[0].message) \
                                 << "\n" << (json).dump().substr(0, 2000);                 \
  } while (0)

nlohmann::json get_json(httplib::Client& c, const std::string& path, int status = 200) {
  auto r = c.Get(path.c_str());
  EXPECT_TRUE(r) << path;
  if (!r) return {};
  EXPECT_EQ(r->status, status) << path << ": " << r->body;
  return nlohmann::json::parse(r->body);
}

TEST(ApiE2E, RunLifecycleAndPages) {
  Daemon d;
  auto c = d.client();
  auto created = c.Post("/api/v1/runs", small_run_json(16, ", \"name\": \"e2e\""), "application/json");
  ASSERT_TRUE(created);
  ASSERT_EQ(created->status, 201) << created->body;
  const auto run = nlohmann::json::parse(created->body);
  EXPECT_SCHEMA("run_detail.schema.json", run);
  const std::string id = run["id"];
  EXPECT_EQ(created->get_header_value("Location"), "/api/v1/runs/" + id);
  EXPECT_EQ(run["config"]["width"], 16);
  EXPECT_EQ(run["name"], "e2e");

  // Progress appears; a best with an exact score (16-bit runs are scored exactly).
  nlohmann::json detail;
  ASSERT_TRUE(eventually([&] {
    detail = get_json(c, "/api/v1/runs/" + id);
    return detail["best"].is_object() && detail["progress"]["counters"]["tournaments"].get<long>() > 200;
  })) << detail.dump();
  EXPECT_SCHEMA("run_detail.schema.json", detail);
  EXPECT_EQ(detail["state"], "running");
  EXPECT_TRUE(detail["best"]["exact"].get<bool>());

  const auto list = get_json(c, "/api/v1/runs");
  EXPECT_SCHEMA("run_list.schema.json", list);
  EXPECT_EQ(list["total"], 1);
  EXPECT_EQ(get_json(c, "/api/v1/runs?state=finished")["total"], 0);

  const auto pool = get_json(c, "/api/v1/runs/" + id + "/pool?limit=5&order=chi2");
  EXPECT_SCHEMA("pool_page.schema.json", pool);
  ASSERT_EQ(pool["items"].size(), 5u);
  EXPECT_GE(pool["total"].get<int>(), 5);
  for (std::size_t i = 1; i < pool["items"].size(); ++i)
    EXPECT_LE(pool["items"][i - 1]["chi2"].get<double>(), pool["items"][i]["chi2"].get<double>());
  const auto second = get_json(c, "/api/v1/runs/" + id + "/pool?limit=2&offset=2&order=chi2");
  EXPECT_EQ(second["items"].size(), 2u);
  const auto filtered = get_json(c, "/api/v1/runs/" + id + "/pool?limit=1000&min_steps=2&max_steps=3");
  EXPECT_SCHEMA("pool_page.schema.json", filtered);
  for (const auto& f : filtered["items"]) {
    EXPECT_GE(f["steps"].get<int>(), 2);
    EXPECT_LE(f["steps"].get<int>(), 3);
  }
  EXPECT_EQ(filtered["items"].size(), filtered["total"].get<std::size_t>());
  const auto kinds = get_json(c, "/api/v1/runs/" + id + "/pool?limit=1000&kinds=mul-const,xsr");
  for (const auto& f : kinds["items"])
    for (const auto& s : f["program"]["steps"])
      EXPECT_TRUE(s["kind"] == "mul-const" || s["kind"] == "xorshift-right") << f.dump();

  const auto best = get_json(c, "/api/v1/runs/" + id + "/best?limit=3");
  EXPECT_SCHEMA("function_list.schema.json", best);
  ASSERT_GE(best["items"].size(), 1u);
  const auto history = get_json(c, "/api/v1/runs/" + id + "/history");
  EXPECT_SCHEMA("history.schema.json", history);
  ASSERT_GE(history["items"].size(), 1u);
  const double last = history["items"].back()["elapsed_s"];
  EXPECT_TRUE(get_json(c, "/api/v1/runs/" + id + "/history?since=" + std::to_string(last + 1))["items"].empty());

  // The best function: page with matrix and inverse; the matrix's chi2 is the exact score.
  const std::string fid = best["items"][0]["id"];
  const auto fn = get_json(c, "/api/v1/functions/" + fid);
  EXPECT_SCHEMA("function_detail.schema.json", fn);
  EXPECT_EQ(fn["matrix"]["rows"].size(), 16u);
  EXPECT_TRUE(fn["matrix"]["exact"].get<bool>());
  EXPECT_NEAR(fn["matrix"]["chi2"].get<double>(), best["items"][0]["chi2"].get<double>(), 1e-9);
  const mixer::Program p = mixer::parse_program(fn["text"].get<std::string>(), {.width = 16});
  const mixer::Program inv = mixer::parse_program(fn["inverse"]["text"].get<std::string>(), {.width = 16});
  EXPECT_EQ(p.id(), fid);
  EXPECT_GE(inv.size(), 1u);

  const auto hof = get_json(c, "/api/v1/hall-of-fame?width=16&limit=5");
  EXPECT_SCHEMA("hall_of_fame.schema.json", hof);
  ASSERT_GE(hof["items"].size(), 1u);
  EXPECT_EQ(hof["items"][0]["run_id"], id);
  EXPECT_TRUE(get_json(c, "/api/v1/hall-of-fame?width=8")["items"].empty());

  // Control.
  auto paused = c.Post(("/api/v1/runs/" + id + "/pause").c_str(), "{}", "application/json");
  ASSERT_EQ(paused->status, 200) << paused->body;
  EXPECT_EQ(nlohmann::json::parse(paused->body)["state"], "paused");
  // Pausing a paused run is idempotent.
  auto again = c.Post(("/api/v1/runs/" + id + "/pause").c_str(), "{}", "application/json");
  EXPECT_EQ(again->status, 200) << again->body;
  EXPECT_EQ(nlohmann::json::parse(again->body)["progress"]["state"], "paused");
  auto resumed = c.Post(("/api/v1/runs/" + id + "/resume").c_str(), "{}", "application/json");
  ASSERT_EQ(resumed->status, 200) << resumed->body;
  EXPECT_EQ(nlohmann::json::parse(resumed->body)["state"], "running");
  auto stopped = c.Post(("/api/v1/runs/" + id + "/stop").c_str(), "{}", "application/json");
  ASSERT_EQ(stopped->status, 200) << stopped->body;
  const auto stopped_json = nlohmann::json::parse(stopped->body);
  EXPECT_SCHEMA("run_detail.schema.json", stopped_json);
  EXPECT_EQ(stopped_json["state"], "stopped");
  EXPECT_FALSE(stopped_json["active"].get<bool>());
  auto with_budget = c.Post(("/api/v1/runs/" + id + "/resume").c_str(), R"({"budget": {"tournaments": 50}})",
                            "application/json");
  ASSERT_EQ(with_budget->status, 200) << with_budget->body;
  ASSERT_TRUE(eventually([&] { return get_json(c, "/api/v1/runs/" + id)["state"] == "finished"; }));

  auto del = c.Delete(("/api/v1/runs/" + id).c_str());
  ASSERT_EQ(del->status, 204);
  auto gone = c.Get(("/api/v1/runs/" + id).c_str());
  EXPECT_EQ(gone->status, 404);
  EXPECT_EQ(gone->get_header_value("Content-Type"), "application/problem+json");
  EXPECT_SCHEMA("problem.schema.json", nlohmann::json::parse(gone->body));
  // Hall-of-fame entries outlive their run, and the run's id still filters them (it was a
  // 404: a client could not follow a run_id from the listing).
  EXPECT_GE(get_json(c, "/api/v1/hall-of-fame?width=16")["items"].size(), 1u);
  auto by_run = c.Get(("/api/v1/hall-of-fame?run_id=" + id).c_str());
  ASSERT_EQ(by_run->status, 200) << by_run->body;
  const auto by_run_json = nlohmann::json::parse(by_run->body);
  EXPECT_SCHEMA("hall_of_fame.schema.json", by_run_json);
  ASSERT_GE(by_run_json["items"].size(), 1u);
  for (const auto& item : by_run_json["items"]) EXPECT_EQ(item["run_id"], id);
}

// 16.0 is an integer (JSON Schema draft-07; Python's json.dumps writes floats so).
TEST(ApiE2E, IntegralFloatsAreIntegers) {
  Daemon d;
  auto c = d.client();
  auto r = c.Post("/api/v1/runs?start=false", R"({"width": 16.0, "pool_size": 20.0, "budget": {"tournaments": 10.0}})",
                  "application/json");
  ASSERT_EQ(r->status, 201) << r->body;
  const auto run = nlohmann::json::parse(r->body);
  EXPECT_EQ(run["config"]["width"], 16);
  EXPECT_EQ(run["config"]["pool_size"], 20);
  EXPECT_EQ(c.Post("/api/v1/runs?start=false", R"({"width": 16.5})", "application/json")->status, 422);
}

TEST(ApiE2E, CreateWithoutStartAndStartLater) {
  Daemon d;
  auto c = d.client();
  auto r = c.Post("/api/v1/runs?start=false", small_run_json(8), "application/json");
  ASSERT_EQ(r->status, 201) << r->body;
  const auto run = nlohmann::json::parse(r->body);
  EXPECT_EQ(run["state"], "created");
  EXPECT_FALSE(run["active"].get<bool>());
  const std::string id = run["id"];
  // created -> stopped is a legal transition (BRIEF "Decisions"); stopping it again is not.
  auto stop = c.Post(("/api/v1/runs/" + id + "/stop").c_str(), "{}", "application/json");
  EXPECT_EQ(stop->status, 200) << stop->body;
  EXPECT_EQ(nlohmann::json::parse(stop->body)["state"], "stopped");
  auto again = c.Post(("/api/v1/runs/" + id + "/stop").c_str(), "{}", "application/json");
  EXPECT_EQ(again->status, 409) << again->body;
  auto start = c.Post(("/api/v1/runs/" + id + "/resume").c_str(), "{}", "application/json");
  ASSERT_EQ(start->status, 200) << start->body;
  EXPECT_EQ(nlohmann::json::parse(start->body)["state"], "running");
}

TEST(ApiE2E, EvaluateMatchesInProcessScores) {
  Daemon d;
  auto c = d.client();
  // Exact 16-bit through the daemon (JIT) == the reference interpreter in this process.
  const std::string text = "x ^= x >> 8;\nx *= 0x88b5;\nx ^= x >> 7;\nx *= 0xdb2d;\nx ^= x >> 9;";
  nlohmann::json req = {{"program", text}, {"width", 16}, {"exact", true}};
  auto r = c.Post("/api/v1/evaluate", req.dump(), "application/json");
  ASSERT_EQ(r->status, 200) << r->body;
  const auto out = nlohmann::json::parse(r->body);
  EXPECT_SCHEMA("evaluate_response.schema.json", out);
  const avalanche::Evaluator reference(nullptr);
  const avalanche::Score expect = reference.exact(mixer::parse_program(text, {.width = 16}));
  EXPECT_TRUE(out["score"]["exact"].get<bool>());
  EXPECT_NEAR(out["score"]["chi2"].get<double>(), expect.chi2, 1e-12 * std::max(1.0, expect.chi2));
  EXPECT_EQ(out["matrix"].size(), 16u);
  EXPECT_EQ(out["program"]["width"], 16);

  // The JSON form, sampled: the same numbers as the reference at the same seed.
  const mixer::Program lowbias = mixforge::test::lowbias32();
  nlohmann::json jreq = {{"program", nlohmann::json::parse(R"({"width":32,"steps":[
      {"kind":"xorshift-right","shift":16},{"kind":"mul-const","constant":"0x7feb352d"},
      {"kind":"xorshift-right","shift":15},{"kind":"mul-const","constant":"0x846ca68b"},
      {"kind":"xorshift-right","shift":16}]})")},
                         {"samples", 65536}, {"seed", 7}, {"matrix", false}};
  auto s = c.Post("/api/v1/evaluate", jreq.dump(), "application/json");
  ASSERT_EQ(s->status, 200) << s->body;
  const auto sout = nlohmann::json::parse(s->body);
  EXPECT_SCHEMA("evaluate_response.schema.json", sout);
  EXPECT_FALSE(sout.contains("matrix"));
  const avalanche::Score sref = reference.sampled(lowbias, 65536, 7);
  EXPECT_EQ(sout["score"]["samples"], 65536);
  EXPECT_NEAR(sout["score"]["chi2"].get<double>(), sref.chi2, 1e-9);
  EXPECT_EQ(sout["program"]["id"], lowbias.id());
}

TEST(ApiE2E, MetaEndpoints) {
  Daemon d;
  auto c = d.client();
  const auto health = get_json(c, "/healthz");
  EXPECT_SCHEMA("health.schema.json", health);
  EXPECT_EQ(health["status"], "ok");
  EXPECT_EQ(health["device"]["kind"], "cpu");  // the tests' daemons score on the CPU
  c.Post("/api/v1/runs", small_run_json(8), "application/json");
  c.Get("/api/v1/nothing-here");
  auto m = c.Get("/metrics");
  ASSERT_EQ(m->status, 200);
  EXPECT_EQ(m->get_header_value("Content-Type").rfind("text/plain; version=0.0.4", 0), 0u);
  for (const char* name : {"mixforge_http_requests_total{", "mixforge_http_request_duration_seconds_bucket{",
                           "mixforge_run_tournaments_total{", "mixforge_run_scored_total{",
                           "mixforge_run_early_rejects_total{", "mixforge_run_best_chi2",
                           "mixforge_evaluations_queued ", "mixforge_evaluations_running ",
                           "mixforge_sse_clients ", "mixforge_runs_active 1",
                           "mixforge_device_info{kind=\"cpu\",name=\"cpu\"} 1"})
    EXPECT_NE(m->body.find(name), std::string::npos) << name;
  EXPECT_NE(m->body.find("route=\"/api/v1/runs\",method=\"POST\",status=\"201\""), std::string::npos);
  EXPECT_NE(m->body.find("route=\"unmatched\",method=\"GET\",status=\"404\""), std::string::npos);

  // The OpenAPI document: 3.1, every schema under components, refs resolvable.
  const auto api = get_json(c, "/openapi.json");
  EXPECT_EQ(api["openapi"], "3.1.0");
  for (const auto& name : schemas().names()) {
    if (name == "openapi.json") continue;
    const std::string key = name.substr(0, name.size() - std::string(".schema.json").size());
    EXPECT_TRUE(api["components"]["schemas"].contains(key)) << key;
  }
  const std::string dumped = api.dump();
  std::size_t at = 0;
  while ((at = dumped.find("\"$ref\":\"#/components/", at)) != std::string::npos) {
    const auto end = dumped.find('"', at + 8);
    const std::string ref = dumped.substr(at + 8, end - at - 8);  // "#/components/..."

    const nlohmann::json::json_pointer ptr(ref.substr(1));
    EXPECT_TRUE(api.contains(ptr)) << ref;
    at = end;
  }
  EXPECT_EQ(get_json(c, "/api/v1/openapi.json"), api);
}

TEST(ApiE2E, DefaultRunOnFirstStart) {
  // An empty data directory: one 32-bit, 5-step run starts by itself.
  Daemon d({}, {}, /*default_run=*/true);
  auto c = d.client();
  const auto list = get_json(c, "/api/v1/runs");
  ASSERT_EQ(list["total"], 1) << list.dump();
  EXPECT_EQ(list["items"][0]["config"]["width"], 32);
  EXPECT_EQ(list["items"][0]["config"]["max_steps"], 5);
  EXPECT_EQ(list["items"][0]["state"], "running");
  // A second start on the same (now non-empty) directory adds none.
  const auto data = d.data();
  d.terminate();
  Daemon again({}, data, /*default_run=*/true);
  auto c2 = again.client();
  EXPECT_EQ(get_json(c2, "/api/v1/runs")["total"], 1);
}

TEST(ApiE2E, DefaultRunOnFirstStartWithTheTokenFileInTheDataDirectory) {
  // The container image's layout: --token-file /data/token --data /data. The token file the
  // daemon creates there does not make its first start look like a restart.
  const fs::path data = fresh_dir("token-in-data");
  Daemon d({"--token-file", (data / "token").string()}, data, /*default_run=*/true);
  ASSERT_TRUE(fs::exists(data / "token"));
  auto c = d.client();
  EXPECT_EQ(get_json(c, "/api/v1/runs")["total"], 1);
  d.terminate();
  Daemon again({"--token-file", (data / "token").string()}, data, /*default_run=*/true);
  auto c2 = again.client();
  EXPECT_EQ(get_json(c2, "/api/v1/runs")["total"], 1);
  std::error_code ec;
  fs::remove_all(data, ec);
}

}  // namespace
}  // namespace mixforge::test

namespace mixforge::test {
namespace {

TEST(ApiE2E, ExportEndpoints) {
  Daemon d;
  auto c = d.client();
  const bool available = nlohmann::json::parse(c.Get("/healthz")->body)["export"].get<bool>();
  const std::string req = R"({"target": "glsl", "programs": [{"program": "x ^= x >> 16; x *= 0x7feb352d; x ^= x >> 15;"}], "name": "hash"})";
  auto r = c.Post("/api/v1/export", req, "application/json");
  ASSERT_TRUE(r);
  if (!available) {
    EXPECT_EQ(r->status, 501);
    EXPECT_EQ(r->get_header_value("Content-Type"), "application/problem+json");
    GTEST_SKIP() << "export is unavailable in this build (/healthz says export: false; built without shader/): "
                    "only the 501 answer was checked, the export routes were not exercised";
  }
  ASSERT_EQ(r->status, 200) << r->body;
  const auto out = nlohmann::json::parse(r->body);
  EXPECT_SCHEMA("export_response.schema.json", out);
  EXPECT_EQ(out["name"], "hash");
  EXPECT_NE(out["code"].get<std::string>().find("uint hash(uint x)"), std::string::npos) << out["code"];
  EXPECT_NE(out["code"].get<std::string>().find("0x7feb352d"), std::string::npos);
  // Four vec4 lanes sharing a kind sequence; and the bundle of every target.
  auto v = c.Post("/api/v1/export",
                  R"({"target": "hlsl", "vec4": true, "programs": [{"program": "x ^= x >> 3; x *= 107; x ^= x >> 3;", "width": 7},
                      {"program": "x ^= x >> 16; x *= 0x7feb352d; x ^= x >> 15;"}]})",
                  "application/json");
  ASSERT_EQ(v->status, 200) << v->body;
  EXPECT_SCHEMA("export_response.schema.json", nlohmann::json::parse(v->body));
  auto b = c.Post("/api/v1/export", R"({"target": "bundle", "programs": [{"program": "x ^= x >> 3;", "width": 8}]})",
                  "application/json");
  ASSERT_EQ(b->status, 200) << b->body;
  EXPECT_TRUE(nlohmann::json::parse(b->body)["bundle"]["code"].contains("glsl"));
  // GET for a function of a run: the code as text.
  auto run = c.Post("/api/v1/runs", small_run_json(8, ", \"budget\": {\"tournaments\": 50}"), "application/json");
  const std::string id = nlohmann::json::parse(run->body)["id"];
  std::string fid;
  ASSERT_TRUE(eventually([&] {
    const auto best = nlohmann::json::parse(c.Get(("/api/v1/runs/" + id + "/best?limit=1").c_str())->body);
    if (best["items"].empty()) return false;
    fid = best["items"][0]["id"];
    return true;
  }));
  auto g = c.Get(("/api/v1/functions/" + fid + "/export?target=wgsl&name=mix8").c_str());
  ASSERT_EQ(g->status, 200) << g->body;
  EXPECT_EQ(g->get_header_value("Content-Type").rfind("text/plain", 0), 0u);
  EXPECT_NE(g->body.find("fn mix8("), std::string::npos) << g->body;
}

}  // namespace
}  // namespace mixforge::test
