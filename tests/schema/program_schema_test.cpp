// The JSON form agrees with its schema (schema/program.schema.json), checked by schema::JsonSchema.
#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>

#include "mixer/json_form.hpp"
#include "mixer/text_form.hpp"
#include "schema/json_schema.hpp"
#include "support/random_program.hpp"

using namespace mixforge;

namespace {
class ProgramSchema : public ::testing::Test {
 protected:
  void SetUp() override {
    std::ifstream in(std::string(MIXFORGE_SOURCE_DIR) + "/schema/program.schema.json");
    ASSERT_TRUE(in);
    schema_ = std::make_unique<schema::JsonSchema>(nlohmann::json::parse(in));
  }
  bool valid(const nlohmann::json& j) { return schema_->valid(j); }
  std::unique_ptr<schema::JsonSchema> schema_;
};
}  // namespace

TEST_F(ProgramSchema, EveryPrintedProgramValidates) {
  std::mt19937_64 rng(5);
  for (int t = 0; t < 500; ++t) {
    const int n = 1 + static_cast<int>(rng() % 64);
    EXPECT_TRUE(valid(mixer::to_json(mixforge::testing::random_program(rng, n, 6))));
  }
}

TEST_F(ProgramSchema, RejectsWhatTheParserRejectsStructurally) {
  EXPECT_FALSE(valid(nlohmann::json::parse(R"({"width": 0, "steps": []})")));
  EXPECT_FALSE(valid(nlohmann::json::parse(R"({"width": 8})")));
  EXPECT_FALSE(valid(nlohmann::json::parse(R"({"width": 8, "steps": []})")));  // no empty program
  EXPECT_FALSE(valid(nlohmann::json::parse(R"({"width": 8, "steps": [], "extra": 1})")));
  // (kind / field agreement, e.g. a mul-const with a "shift", is checked by program_from_json,
  // which names the field; the schema keeps one flat step object so its errors stay precise.)
  EXPECT_FALSE(valid(nlohmann::json::parse(R"({"width": 8, "steps": [{"kind": "twist", "shift": 3}]})")));
  EXPECT_FALSE(valid(nlohmann::json::parse(R"({"width": 8, "steps": [{"kind": "mul-const", "constant": "0xzz"}]})")));
  EXPECT_TRUE(valid(nlohmann::json::parse(R"({"width": 8, "steps": [{"kind": "mul", "constant": 3}]})")));
}
