#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "evolver/run_config.hpp"

using namespace mixforge;
using namespace mixforge::evolver;
using nlohmann::json;

namespace {
std::string field_of(const json& j) {
  try {
    run_config_from_json(j);
  } catch (const ConfigError& e) {
    return e.field();
  }
  return "(accepted)";
}
}  // namespace

TEST(RunConfig, EmptyDocumentGivesDefaults) {
  const RunConfig c = run_config_from_json(json::object());
  EXPECT_EQ(c.width, 32);
  EXPECT_EQ(c.max_steps, 5);
  EXPECT_EQ(c.pool_size, 1000u);
  EXPECT_EQ(c.kinds().size(), 9u);
  EXPECT_FALSE(c.kind_sequence);
  EXPECT_FALSE(c.budget.seconds);
  EXPECT_FALSE(c.budget.tournaments);
}

TEST(RunConfig, RoundTripsThroughJson) {
  json j = {{"width", 12},
            {"max_steps", 6},
            {"kind_sequence", {"xsr", "mul-const", "xorshift-right"}},
            {"pool_size", 77},
            {"mutation", {{"swap", 0}, {"insert", 3.5}}},
            {"early_reject", {{"margin", 0.25}, {"first_samples", 1024}}},
            {"precision", {{"exact_max_width", 8}, {"initial_samples", 4096}}},
            {"budget", {{"tournaments", 1000}}},
            {"seed", 18446744073709551615ull},
            {"threads", 1}};
  const RunConfig a = run_config_from_json(j);
  EXPECT_EQ(a.width, 12);
  ASSERT_TRUE(a.kind_sequence);
  EXPECT_EQ(a.kind_sequence->at(1), StepKind::mul_const);
  EXPECT_EQ(a.seed, 18446744073709551615ull);
  EXPECT_EQ(a.mutation.swap, 0);
  EXPECT_EQ(a.mutation.insert, 3.5);
  EXPECT_EQ(*a.budget.tournaments, 1000u);
  const RunConfig b = run_config_from_json(to_json(a));
  EXPECT_EQ(to_json(a), to_json(b));
}

TEST(RunConfig, SchemaErrorsNameTheField) {
  EXPECT_EQ(field_of({{"width", 0}}), "width");
  EXPECT_EQ(field_of({{"width", 65}}), "width");
  EXPECT_EQ(field_of({{"width", "32"}}), "width");
  EXPECT_EQ(field_of({{"early_reject", {{"margin", -1}}}}), "early_reject.margin");
  EXPECT_EQ(field_of({{"early_reject", {{"confidence", 1.0}}}}), "early_reject.confidence");
  EXPECT_EQ(field_of({{"kind_sequence", {"xsr", "bogus"}}}), "kind_sequence[1]");
  EXPECT_EQ(field_of({{"mutation", {{"swap", -2}}}}), "mutation.swap");
  EXPECT_EQ(field_of({{"budget", {{"seconds", 0}}}}), "budget.seconds");
  EXPECT_EQ(field_of({{"pool_size", 1}}), "pool_size");
  EXPECT_EQ(field_of({{"seed", -1}}), "seed");
  EXPECT_EQ(field_of({{"kind_weights", {{"xsr", -1}}}}), "kind_weights.xsr");
  EXPECT_NE(field_of({{"kind_weights", {{"bogus", 1}}}}), "(accepted)");
  EXPECT_EQ(field_of(json::array()), "(root)");
  // Unknown fields are errors, not silently ignored.
  const std::string unknown = field_of({{"widht", 8}});
  EXPECT_NE(unknown, "(accepted)");
}

TEST(RunConfig, CrossFieldRules) {
  EXPECT_EQ(field_of({{"min_steps", 6}, {"max_steps", 5}}), "min_steps");
  EXPECT_EQ(field_of({{"max_steps", 2}, {"kind_sequence", {"xsr", "mul", "xsr"}}}), "kind_sequence");
  EXPECT_EQ(field_of({{"width", 1}, {"allowed_kinds", {"xsr", "rot"}}}), "allowed_kinds");
  EXPECT_EQ(field_of({{"mutation", {{"constant_small", 0}, {"constant_large", 0}, {"swap", 0},
                                    {"remove", 0}, {"insert", 0}}}}),
            "mutation");
  EXPECT_EQ(field_of({{"precision", {{"initial_samples", 1 << 20}, {"max_samples", 1 << 16}}}}),
            "precision.initial_samples");
  // A kind sequence longer than the default max_steps sets the length.
  const RunConfig c = run_config_from_json({{"kind_sequence", {"xsr", "mul", "xsr", "mul", "xsr", "mul", "xsr"}}});
  EXPECT_EQ(c.max_steps, 7);
}

TEST(RunConfig, MessageIsReadable) {
  try {
    run_config_from_json({{"width", 100}});
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("width"), std::string::npos) << e.what();
  }
}
