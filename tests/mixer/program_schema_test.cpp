// The JSON form agrees with its schema (schema/program.schema.json), validated by valijson.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validator.hpp>

#include "mixer/json_form.hpp"
#include "mixer/text_form.hpp"
#include "support/random_program.hpp"

using namespace mixforge;

namespace {
class ProgramSchema : public ::testing::Test {
 protected:
  void SetUp() override {
    std::ifstream in(std::string(MIXFORGE_SOURCE_DIR) + "/schema/program.schema.json");
    ASSERT_TRUE(in);
    doc_ = nlohmann::json::parse(in);
    valijson::SchemaParser parser(valijson::SchemaParser::kDraft7);
    valijson::adapters::NlohmannJsonAdapter adapter(doc_);
    parser.populateSchema(adapter, schema_);
  }
  bool valid(const nlohmann::json& j) {
    valijson::Validator v;
    valijson::adapters::NlohmannJsonAdapter a(j);
    return v.validate(schema_, a, nullptr);
  }
  nlohmann::json doc_;
  valijson::Schema schema_;
};
}  // namespace

TEST_F(ProgramSchema, EveryPrintedProgramValidates) {
  std::mt19937_64 rng(5);
  for (int t = 0; t < 500; ++t) {
    const int n = 1 + static_cast<int>(rng() % 64);
    EXPECT_TRUE(valid(to_json(mixforge::testing::random_program(rng, n, 6))));
  }
}

TEST_F(ProgramSchema, RejectsWhatTheParserRejectsStructurally) {
  EXPECT_FALSE(valid(nlohmann::json::parse(R"({"width": 0, "steps": []})")));
  EXPECT_FALSE(valid(nlohmann::json::parse(R"({"width": 8})")));
  EXPECT_FALSE(valid(nlohmann::json::parse(R"({"width": 8, "steps": [], "extra": 1})")));
  // (kind / field agreement, e.g. a mul-const with a "shift", is checked by program_from_json,
  // which names the field; the schema keeps one flat step object so its errors stay precise.)
  EXPECT_FALSE(valid(nlohmann::json::parse(R"({"width": 8, "steps": [{"kind": "twist", "shift": 3}]})")));
  EXPECT_FALSE(valid(nlohmann::json::parse(R"({"width": 8, "steps": [{"kind": "mul-const", "constant": "0xzz"}]})")));
  EXPECT_TRUE(valid(nlohmann::json::parse(R"({"width": 8, "steps": [{"kind": "mul", "constant": 3}]})")));
}
