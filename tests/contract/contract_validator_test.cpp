// The bundled OpenAPI document and the validator that enforces it on every e2e response.
#include <fstream>
#include <set>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "evolver/search/run_config.hpp"
#include "server/api/embedded_schemas.hpp"
#include "tests/contract/contract_validator.hpp"

namespace {
using mixforge::contract::ContractValidator;
using mixforge::contract::Exchange;
using nlohmann::json;

const ContractValidator& v() { return ContractValidator::bundled(); }
const json& doc() { return v().document(); }

Exchange problem(const std::string& method, const std::string& target, int status) {
  return {method, target, status, {{"Content-Type", "application/problem+json"}},
          json{{"type", "https://mixforge.invalid/problems/x"}, {"title", "X"}, {"status", status}, {"detail", "d"}}.dump()};
}

std::string joined(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += s + "\n";
  return out;
}

TEST(BundledDocument, IsWhatTheDaemonEmbeds) {
  std::ifstream in(ContractValidator::bundled_path(), std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), std::string(mixforge::server::embedded_openapi()));
}

TEST(BundledDocument, EveryReferenceIsLocalAndResolves) {
  const std::string text = doc().dump();
  std::size_t at = 0, refs = 0;
  while ((at = text.find("\"$ref\":\"", at)) != std::string::npos) {
    const auto from = at + 8, end = text.find('"', from);
    const std::string ref = text.substr(from, end - from);
    ASSERT_EQ(ref.rfind("#/components/", 0), 0u) << ref;
    EXPECT_TRUE(doc().contains(json::json_pointer(ref.substr(1)))) << ref;
    at = end;
    ++refs;
  }
  EXPECT_GT(refs, 100u);
  EXPECT_EQ(text.find("\"$id\""), std::string::npos);
}

TEST(BundledDocument, EveryOperationIsDescribedAndListsTheSharedStatuses) {
  std::set<std::string> ids;
  for (const auto& [path, method] : v().operations()) {
    const json& op = doc()["paths"][path][method];
    SCOPED_TRACE(method + " " + path);
    for (const char* key : {"operationId", "summary", "description", "tags", "responses"}) EXPECT_TRUE(op.contains(key)) << key;
    EXPECT_TRUE(ids.insert(op.value("operationId", "")).second) << "duplicate operationId";
    const auto statuses = v().documented_statuses(path, method);
    const std::set<int> have(statuses.begin(), statuses.end());
    for (int s : {400, 403, 413, 421, 429, 431, 503}) EXPECT_TRUE(have.count(s)) << s;
    if (method == "post" || method == "delete") {
      EXPECT_TRUE(have.count(401));
    }
    if (method == "post") {
      EXPECT_TRUE(have.count(415));
      EXPECT_TRUE(have.count(422));
      EXPECT_TRUE(op["requestBody"].value("required", false));
      EXPECT_TRUE(op["requestBody"]["content"]["application/json"].contains("example"));
    }
    if (path.find('{') != std::string::npos) {
      EXPECT_TRUE(have.count(404));
    }
  }
  EXPECT_EQ(ids.size(), 88u);  // 35 routes, HEAD for each of the 24 GETs, OPTIONS for each of the 29 paths
  EXPECT_EQ(doc()["security"], json::parse(R"([{"bearer": []}, {}])"));
  EXPECT_TRUE(doc()["info"].contains("license"));
  EXPECT_TRUE(doc()["info"].contains("contact"));
  // Prism skips body validation when jsonSchemaDialect is spelled out (README): omitted.
  EXPECT_FALSE(doc().contains("jsonSchemaDialect"));
}

TEST(BundledDocument, SeedIsAnExactIntegerOrADecimalString) {
  const json& seed = doc()["components"]["schemas"]["run_seed"];
  ASSERT_TRUE(seed.contains("oneOf")) << seed.dump();
  EXPECT_EQ(seed["oneOf"][0]["maximum"], 9007199254740991LL);
  EXPECT_EQ(doc()["components"]["schemas"]["run"]["properties"]["seed"]["$ref"], "#/components/schemas/run_seed");
}

// The run's optional objective: the create example uses it, the run schema bounds its
// weights, and a function's objective terms are part of its documented form.
TEST(BundledDocument, RunObjectiveIsDocumentedWithAnExample) {
  const json& example = doc()["paths"]["/api/v1/runs"]["post"]["requestBody"]["content"]["application/json"]["example"];
  ASSERT_TRUE(example.contains("objective")) << example.dump();
  const auto config = mixforge::evolver::run_config_from_json(example);
  EXPECT_TRUE(config.objective.enabled());
  EXPECT_EQ(config.objective.bic_weight, example["objective"]["bic_weight"].get<double>());
  const json& objective = doc()["components"]["schemas"]["run"]["properties"]["objective"];
  EXPECT_EQ(objective["properties"]["bic_weight"]["minimum"], 0);
  EXPECT_EQ(objective["properties"]["higher_order_weight"]["minimum"], 0);
  EXPECT_EQ(objective["additionalProperties"], false);

  json f = doc()["paths"]["/api/v1/runs/{id}/best"]["get"]["responses"]["200"]["content"]["application/json"]["example"];
  ASSERT_FALSE(f["items"].empty());
  f["items"][0]["objective"] = {{"bic", 0.012},         {"bic_stderr", 0.0004}, {"bic_exact", false},
                                {"higher_order", 0.0}, {"higher_order_stderr", 0.0005}, {"samples", 16384},
                                {"penalty", 0.006},    {"total", 25.35}};
  Exchange best{"GET", "/api/v1/runs/rx/best", 200, {{"Content-Type", "application/json"}}, f.dump()};
  EXPECT_TRUE(v().check(best).empty()) << joined(v().check(best));
  f["items"][0]["objective"]["weight"] = 1;
  best.body = f.dump();
  EXPECT_FALSE(v().check(best).empty());
}

TEST(ContractValidator, MatchesPathTemplates) {
  EXPECT_EQ(v().path_template("/api/v1/runs"), "/api/v1/runs");
  EXPECT_EQ(v().path_template("/api/v1/runs?limit=2"), "/api/v1/runs");
  EXPECT_EQ(v().path_template("/api/v1/runs/r123/pause"), "/api/v1/runs/{id}/pause");
  EXPECT_EQ(v().path_template("/api/v1/runs/%00"), "/api/v1/runs/{id}");
  EXPECT_EQ(v().path_template("/api/v1/runs/"), "");
  EXPECT_EQ(v().path_template("/api/v1/nothing"), "");
}

TEST(ContractValidator, AcceptsDocumentedAnswers) {
  Exchange health{"GET", "/healthz", 200, {{"Content-Type", "application/json"}},
                  R"J({"status":"ok","version":"0.1.0","uptime_s":1.5,"runs":0,"active_runs":0,"jit":true,"device":{"kind":"gpu","name":"NVIDIA H100 (sm_90)"},"export":true})J"};
  EXPECT_TRUE(v().check(health).empty()) << joined(v().check(health));
  EXPECT_TRUE(v().check(problem("GET", "/api/v1/runs/rx", 404)).empty());
  EXPECT_TRUE(v().check(problem("POST", "/api/v1/runs/rx/pause", 409)).empty());
  EXPECT_TRUE(v().check(problem("GET", "/api/v1/nothing", 404)).empty());
  auto put = problem("PUT", "/api/v1/runs", 405);
  put.headers.emplace_back("Allow", "GET, POST");
  EXPECT_TRUE(v().check(put).empty()) << joined(v().check(put));
  Exchange del{"DELETE", "/api/v1/runs/rx", 204, {}, ""};
  EXPECT_TRUE(v().check(del).empty()) << joined(v().check(del));
  Exchange head{"HEAD", "/api/v1/runs", 200, {{"Content-Type", "application/json"}}, ""};
  EXPECT_TRUE(v().check(head).empty()) << joined(v().check(head));
  Exchange sse{"GET", "/api/v1/runs/rx/events", 200, {{"Content-Type", "text/event-stream"}}, "", false};
  EXPECT_TRUE(v().check(sse).empty()) << joined(v().check(sse));
  Exchange page{"GET", "/index.html", 200, {{"Content-Type", "text/html"}}, "<html>"};
  EXPECT_TRUE(v().check(page).empty()) << "static files are outside the API contract";
}

TEST(ContractValidator, RejectsWhatTheDocumentDoesNotSay) {
  // An undocumented status.
  EXPECT_FALSE(v().check(problem("GET", "/healthz", 409)).empty());
  EXPECT_FALSE(v().check(problem("GET", "/api/v1/runs", 500)).empty());
  // 429 without Retry-After; 405 without Allow.
  EXPECT_FALSE(v().check(problem("POST", "/api/v1/evaluate", 429)).empty());
  EXPECT_FALSE(v().check(problem("PUT", "/api/v1/runs", 405)).empty());
  // A content type the status does not document.
  Exchange text{"GET", "/healthz", 200, {{"Content-Type", "text/plain"}}, "ok"};
  EXPECT_FALSE(v().check(text).empty());
  // A body that violates its schema (missing field, wrong type, extra field).
  Exchange bad{"GET", "/healthz", 200, {{"Content-Type", "application/json"}}, R"({"status":"ok"})"};
  EXPECT_FALSE(v().check(bad).empty());
  bad.body = R"({"status":"ok","version":1,"uptime_s":1,"runs":0,"active_runs":0,"jit":true,"export":true})";
  EXPECT_FALSE(v().check(bad).empty());
  bad.body = R"({"status":"ok","version":"1","uptime_s":1,"runs":0,"active_runs":0,"jit":true,"export":true,"x":1})";
  EXPECT_FALSE(v().check(bad).empty());
  bad.body = "{not json";
  EXPECT_FALSE(v().check(bad).empty());
  // A problem that is not a problem document.
  Exchange p{"GET", "/api/v1/runs/rx", 404, {{"Content-Type", "application/problem+json"}}, R"({"error":"x"})"};
  EXPECT_FALSE(v().check(p).empty());
  // A body where none is documented; a body on HEAD.
  Exchange del{"DELETE", "/api/v1/runs/rx", 204, {}, "x"};
  EXPECT_FALSE(v().check(del).empty());
  // Anything but 404 (or the HTTP layer's statuses) for an API path that does not exist.
  EXPECT_FALSE(v().check(problem("GET", "/api/v1/nothing", 200)).empty());
}

}  // namespace
