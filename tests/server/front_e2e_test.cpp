// GET /api/v1/runs/{id}/front against the real daemon: a run with the RRC term in its
// objective (issue 51) gives the Pareto front of chi2, RRC depth and steps; a run without
// one the front of chi2 and steps. Every answer is checked against its schema.
#include <gtest/gtest.h>

#include "server/api/schema_validator.hpp"
#include "tests/server/daemon_process.hpp"

namespace mixforge::test {
namespace {

nlohmann::json get_front(httplib::Client& c, const std::string& run, int status = 200) {
  auto r = c.Get(("/api/v1/runs/" + run + "/front").c_str());
  EXPECT_TRUE(r);
  if (!r) return {};
  EXPECT_EQ(r->status, status) << r->body;
  return nlohmann::json::parse(r->body);
}

std::string start_run(httplib::Client& c, const std::string& extra) {
  auto r = c.Post("/api/v1/runs", small_run_json(16, extra), "application/json");
  EXPECT_TRUE(r && r->status == 201) << (r ? r->body : "no answer");
  if (!r || r->status != 201) return {};
  return nlohmann::json::parse(r->body)["id"];
}

}  // namespace

TEST(FrontE2E, RunsWithTheRrcTermHaveAFrontOfChiSquareDepthAndSteps) {
  static const server::SchemaSet schemas;
  Daemon d;
  auto c = d.client(120);
  const std::string run =
      start_run(c, R"(, "budget": {"tournaments": 300}, "objective": {"rrc_weight": 0.001, "rrc_cap_log2": 11})");
  ASSERT_FALSE(run.empty());
  nlohmann::json front;
  ASSERT_TRUE(eventually([&] {
    front = get_front(c, run);
    return !front["items"].empty();
  }));
  EXPECT_TRUE(schemas.check("front.schema.json", front).empty()) << front.dump().substr(0, 2000);
  EXPECT_EQ(front["objectives"], nlohmann::json({"chi2", "rrc_depth_log2", "steps"}));
  EXPECT_GE(front["considered"].get<std::size_t>(), front["items"].size());
  double last_chi2 = -1;
  for (const auto& f : front["items"]) {
    ASSERT_TRUE(f.contains("objective")) << f.dump();
    EXPECT_EQ(f["objective"]["rrc_cap_log2"], 11);  // the least cap: cheap under the sanitizers too
    EXPECT_TRUE(f["objective"]["rrc_depth_log2"].is_number_integer()) << f.dump();
    EXPECT_GE(f["chi2"].get<double>(), last_chi2);  // lowest chi2 first
    last_chi2 = f["chi2"];
  }
  // Without the term: chi2 and steps.
  const std::string plain = start_run(c, R"(, "budget": {"tournaments": 100})");
  ASSERT_TRUE(eventually([&] { return !get_front(c, plain)["items"].empty(); }));
  EXPECT_EQ(get_front(c, plain)["objectives"], nlohmann::json({"chi2", "steps"}));
  get_front(c, "rdoesnotexist", 404);
  // A bad RRC field is refused with its name.
  auto bad = c.Post("/api/v1/runs", small_run_json(16, R"(, "objective": {"rrc_cap_log2": 9})"), "application/json");
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->status, 422) << bad->body;
  EXPECT_NE(bad->body.find("rrc_cap_log2"), std::string::npos) << bad->body;
}

}  // namespace mixforge::test
