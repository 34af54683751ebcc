// The bake use case's rules (app/bake.hpp): a request becomes a plan or a RequestError naming
// its field, the 32-bit lane rule, and the rule "mixers only with mixforge-cmj" as the API's
// schema states it for the dashboard (schema/bake_request.schema.json, x-samplers).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "app/bake.hpp"
#include "mixer/text_form.hpp"

using namespace mixforge;

namespace {

// The field and code a request breaks, "" when it makes a plan.
std::pair<std::string, std::string> refusal(const app::BakeRequest& request, const app::BakePolicy& policy = {}) {
  try {
    app::plan_bake(request, policy);
  } catch (const app::RequestError& e) {
    return {e.field(), e.code()};
  }
  return {"", ""};
}

}  // namespace

TEST(BakePlan, NamesAndSettingsBecomeAPlan) {
  app::BakeRequest r;
  r.sampler = "sobol-owen";
  r.settings = {16, 3, 0.25};
  r.seed = 7;
  r.backend = "auto";
  r.light_sampling = "hemisphere";
  r.two_sided = true;
  const app::BakePlan p = app::plan_bake(r);
  EXPECT_EQ(p.sampler, baker::SamplerKind::sobol_owen);
  EXPECT_EQ(p.spp, 16u);
  EXPECT_EQ(p.bounces, 3u);
  EXPECT_EQ(p.texel, 0.25f);
  EXPECT_EQ(p.seed, 7u);
  EXPECT_EQ(p.backend, "auto");
  EXPECT_EQ(p.light_sampling, baker::LightSampling::hemisphere);
  EXPECT_TRUE(p.two_sided);
  EXPECT_TRUE(p.lanes.empty());
}

TEST(BakePlan, EachBrokenRuleNamesItsField) {
  app::BakeRequest r;
  r.sampler = "halton";
  EXPECT_EQ(refusal(r), std::make_pair(std::string("sampler"), std::string("out-of-range")));
  r = {};
  r.backend = "opengl";
  EXPECT_EQ(refusal(r).first, "backend");
  r = {};
  r.light_sampling = "nee";
  EXPECT_EQ(refusal(r).first, "light_sampling");
  r = {};
  r.settings.spp = 0;
  EXPECT_EQ(refusal(r).first, "spp");
  r = {};
  r.settings.bounces = 9;
  EXPECT_EQ(refusal(r, {1024, 8}), std::make_pair(std::string("bounces"), std::string("limit-exceeded")));
  // Mixers with a sampler that takes none, named as the request gave them.
  r = {};
  r.sampler = "pcg";
  r.mixers_field = "bundle";
  EXPECT_EQ(refusal(r), std::make_pair(std::string("bundle"), std::string("mixers-unused")));
  r.sampler = "mixforge-cmj";
  EXPECT_EQ(refusal(r).first, "");
}

TEST(BakePlan, LanesAreThirtyTwoBitPrograms) {
  EXPECT_NO_THROW(app::check_lane_width(mixer::parse_program("x ^= x >> 16; x *= 0x7feb352d;", {32}), "mixers"));
  try {
    app::check_lane_width(mixer::parse_program("x ^= x >> 33; x *= 0x9e3779b97f4a7c15;", {64}), "mixers.programs[2]");
    FAIL() << "a 64-bit lane was taken";
  } catch (const app::RequestError& e) {
    EXPECT_EQ(e.field(), "mixers.programs[2]");
    EXPECT_EQ(e.code(), "mixer-not-32-bit");
  }
}

// The dashboard reads which samplers take mixers from the API's schema (web/src/lib/
// bake_form.ts); the schema must say what this rule does, for every sampler it names.
TEST(BakePlan, TheSchemaNamesTheSamplersThatTakeMixers) {
  std::ifstream in(std::filesystem::path(MIXFORGE_SOURCE_DIR) / "schema/bake_request.schema.json");
  const nlohmann::json schema = nlohmann::json::parse(in);
  const nlohmann::json& samplers = schema.at("properties").at("sampler").at("enum");
  ASSERT_GE(samplers.size(), 2u);
  std::set<std::string> take;
  for (const auto& s : samplers)
    if (app::uses_mixers(baker::sampler_from_name(s.get<std::string>()))) take.insert(s.get<std::string>());
  const auto listed = schema.at("properties").at("mixers").at("x-samplers").get<std::set<std::string>>();
  EXPECT_EQ(listed, take);
}
