#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "evolver/search/run_config.hpp"
#include "mixer/text_form.hpp"

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
  EXPECT_FALSE(c.migration) << "no migration settings: the island command's own options apply";
  EXPECT_FALSE(to_json(c).contains("migration"));
}

// An island run keeps its migration settings; any one given fills the others with defaults.
TEST(RunConfig, MigrationSettingsAreKeptWithTheRun) {
  const RunConfig c = run_config_from_json({{"migration", {{"migrants", 3}}}});
  ASSERT_TRUE(c.migration);
  EXPECT_EQ(*c.migration, (MigrationConfig{2000, 3, false}));
  EXPECT_EQ(to_json(c)["migration"], json({{"interval", 2000}, {"migrants", 3}, {"topology", "ring"}}));
  EXPECT_EQ(run_config_from_json({{"migration", {{"topology", "random"}}}}).migration->random_topology, true);
  EXPECT_EQ(field_of({{"migration", {{"interval", 0}}}}), "migration.interval");
  EXPECT_EQ(field_of({{"migration", {{"migrants", 1001}}}}), "migration.migrants");
  EXPECT_EQ(field_of({{"migration", {{"topology", "star"}}}}), "migration.topology");
  EXPECT_NE(field_of({{"migration", {{"every", 10}}}}), "(accepted)");
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
            {"seed", "18446744073709551615"},
            {"threads", 1}};
  const RunConfig a = run_config_from_json(j);
  EXPECT_EQ(a.width, 12);
  ASSERT_TRUE(a.kind_sequence);
  EXPECT_EQ(a.kind_sequence->at(1), mixer::StepKind::mul_const);
  EXPECT_EQ(a.seed, 18446744073709551615ull);
  EXPECT_EQ(a.mutation.swap, 0);
  EXPECT_EQ(a.mutation.insert, 3.5);
  EXPECT_EQ(*a.budget.tournaments, 1000u);
  const RunConfig b = run_config_from_json(to_json(a));
  EXPECT_EQ(to_json(a), to_json(b));
  EXPECT_EQ(to_json(a)["seed"], "18446744073709551615");
}

// BRIEF "Decisions": a seed is an integer 0 .. 2^53-1 (exact in every JSON parser) or a
// string of decimal digits up to 2^64-1; it is echoed as an integer up to 2^53-1, else
// as a string.
TEST(RunConfig, SeedTravelsAsIntegerOrDecimalString) {
  const std::uint64_t max53 = (std::uint64_t{1} << 53) - 1;
  EXPECT_EQ(run_config_from_json({{"seed", 0}}).seed, 0u);
  EXPECT_EQ(run_config_from_json({{"seed", max53}}).seed, max53);
  EXPECT_EQ(run_config_from_json({{"seed", "9007199254740992"}}).seed, max53 + 1);
  EXPECT_EQ(run_config_from_json({{"seed", "18446744073709551615"}}).seed, ~std::uint64_t{0});
  EXPECT_EQ(run_config_from_json({{"seed", "42"}}).seed, 42u);
  EXPECT_EQ(field_of({{"seed", max53 + 1}}), "seed");  // an inexact integer: send a string
  EXPECT_EQ(field_of({{"seed", "18446744073709551616"}}), "seed");
  EXPECT_EQ(field_of({{"seed", "-1"}}), "seed");
  EXPECT_EQ(field_of({{"seed", "+1"}}), "seed");
  EXPECT_EQ(field_of({{"seed", ""}}), "seed");
  EXPECT_EQ(field_of({{"seed", "0x10"}}), "seed");
  EXPECT_EQ(field_of({{"seed", " 1"}}), "seed");
  EXPECT_EQ(field_of({{"seed", 1.5}}), "seed");
  EXPECT_EQ(field_of({{"seed", true}}), "seed");
  EXPECT_EQ(field_of({{"seed", json(nullptr)}}), "seed");
  EXPECT_EQ(seed_to_json(7), json(7));
  EXPECT_EQ(seed_to_json(max53), json(max53));
  EXPECT_EQ(seed_to_json(max53 + 1), json("9007199254740992"));
  EXPECT_EQ(seed_to_json(~std::uint64_t{0}), json("18446744073709551615"));
  try {
    seed_from_json(json(-3), "seed_in_body");
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.field(), "seed_in_body");
  }
}

// The field table writes every field it reads: a document with every field set to a
// non-default value survives the round trip unchanged.
TEST(RunConfig, EveryFieldRoundTrips) {
  const json j = {
      {"name", "all"},
      {"width", 20},
      {"max_steps", 7},
      {"min_steps", 2},
      {"allowed_kinds", {"xorshift-right", "mul-const", "rotate"}},
      {"kind_sequence", {"xorshift-right", "mul-const", "rotate"}},
      {"kind_weights",
       {{"xor-const", 2},
        {"mul-const", 5},
        {"add-const", 0},
        {"sub-const", 1},
        {"xorshift-right", 7},
        {"xorshift-left", 1},
        {"add-shift", 1},
        {"sub-shift", 1},
        {"rotate", 3}}},
      {"pool_size", 321},
      {"mutation", {{"constant_small", 1.5}, {"constant_large", 2.5}, {"swap", 0.5}, {"remove", 3}, {"insert", 4}}},
      {"fresh_rate", 0.125},
      {"temperature", 0.75},
      {"max_child_attempts", 3},
      {"early_reject",
       {{"enabled", false}, {"margin", 0.25}, {"confidence", 0.99}, {"first_samples", 2048}, {"growth", 8}}},
      {"precision",
       {{"exact_max_width", 12},
        {"initial_samples", 1024},
        {"max_samples", 65536},
        {"noise_ratio", 2.0},
        {"leaders", 6},
        {"leader_interval", 700},
        {"exact_leaders", false},
        {"exact_max_seconds", 30.0}}},
      {"local_search",
       {{"enabled", false},
        {"first_samples", 4096},
        {"max_samples", 1 << 20},
        {"z", 0.5},
        {"exact_priority", true},
        {"pairs", true},
        {"decisive_z", 3.5},
        {"iterated", false},
        {"kick_moves", 2},
        {"kick_max_moves", 9},
        {"leader_starts", 0.25}}},
      {"memetic",
       {{"local_search_rate", 0.25},
        {"max_moves", 7},
        {"crossover_rate", 0.5},
        {"species_rate", 0.75},
        {"shape_share", 0.25},
        {"score_cache", 4096}}},
      {"restart",
       {{"stagnation_seconds", 90.0},
        {"stagnation_tournaments", 0},
        {"fraction", 0.25},
        {"min_gain", 0.5},
        {"patience", 1.5},
        {"keep_leaders", false},
        {"trap_tournaments", 2500}}},
      {"objective",
       {{"bic_weight", 0.5},
        {"higher_order_weight", 2.0},
        {"samples", 4096},
        {"rrc_weight", 1e-6},
        {"rrc_cap_log2", 18},
        {"rrc_chi2_bound", 2e-5}}},
      {"budget", {{"seconds", 12.5}, {"tournaments", 999}}},
      {"migration", {{"interval", 150}, {"migrants", 6}, {"topology", "random"}}},
      {"seed", 123456789},
      {"threads", 3}};
  json with_seeds = j;
  // In the text form the configuration writes back (format_program), of the kind_sequence.
  with_seeds["seed_programs"] = {mixer::format_program(
      mixer::parse_program("x ^= x >> 10; x *= 0x93a9b; x = (x >> 3) | (x << 17);", mixer::ParseOptions{20}))};
  EXPECT_EQ(to_json(run_config_from_json(j)), j);
  EXPECT_EQ(to_json(run_config_from_json(with_seeds)), with_seeds);
}

// Seed programs (issue 52): read at the run's width, refused with their index and, for
// text that is no program, its line and column; they fit the run's shape or widen it.
TEST(RunConfig, SeedProgramsAreReadAtTheRunsWidthAndRefusedByIndex) {
  const std::string good = "x ^= x >> 8; x *= 0xa3d3; x ^= x >> 7; x *= 0x4b2d; x ^= x >> 9;";
  const RunConfig c = run_config_from_json({{"width", 16}, {"seed_programs", {good}}, {"max_steps", 6}});
  ASSERT_EQ(c.seed_programs.size(), 1u);
  EXPECT_EQ(c.seed_programs[0], mixer::parse_program(good, mixer::ParseOptions{16}));
  // Without a given max_steps the run's grows to the longest seed.
  const std::string seven =
      "x ^= x >> 17; x *= 0xed5ad4bb; x ^= x >> 11; x *= 0xac4c1b51; x ^= x >> 15; "
      "x *= 0x31848bab; x ^= x >> 14;";
  EXPECT_EQ(run_config_from_json({{"seed_programs", {seven}}}).max_steps, 7);
  try {
    run_config_from_json({{"width", 16}, {"seed_programs", {good, "x ^= x >> 8;\nx *= ;"}}});
    FAIL() << "a bad program was accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.field(), "seed_programs[1]");
    EXPECT_NE(std::string(e.what()).find("line 2, column 6"), std::string::npos) << e.what();
  }
  EXPECT_EQ(field_of({{"width", 16}, {"seed_programs", {"x ^= x >> 3; x &= 0xff;"}}}), "seed_programs[0]");
  EXPECT_EQ(field_of({{"width", 40}, {"seed_programs", {"x ^= x >> 3;"}}}), "seed_programs[0]");
  EXPECT_EQ(field_of({{"seed_programs", {good}}, {"max_steps", 4}}), "seed_programs[0]");
  EXPECT_EQ(field_of({{"seed_programs", {good}}, {"allowed_kinds", {"xorshift-right"}}}), "seed_programs[0]");
  EXPECT_EQ(field_of({{"seed_programs", {good}}, {"kind_sequence", {"xorshift-right", "mul-const", "xorshift-right"}}}),
            "seed_programs[0]");
  EXPECT_EQ(field_of({{"seed_programs", {""}}}), "seed_programs[0]");
  EXPECT_EQ(field_of({{"seed_programs", {42}}}), "seed_programs[0]");
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
  EXPECT_EQ(field_of({{"local_search", {{"z", -1}}}}), "local_search.z");
  EXPECT_EQ(field_of({{"restart", {{"fraction", 0}}}}), "restart.fraction");
  EXPECT_EQ(field_of({{"memetic", {{"local_search_rate", 1.5}}}}), "memetic.local_search_rate");
  EXPECT_EQ(field_of({{"local_search", {{"kick_moves", 0}}}}), "local_search.kick_moves");
  EXPECT_EQ(field_of({{"local_search", {{"leader_starts", 2}}}}), "local_search.leader_starts");
  EXPECT_EQ(field_of({{"memetic", {{"crossover_rate", -0.1}}}}), "memetic.crossover_rate");
  EXPECT_EQ(field_of({{"memetic", {{"species_rate", "half"}}}}), "memetic.species_rate");
  EXPECT_EQ(field_of({{"memetic", {{"max_moves", 0}}}}), "memetic.max_moves");
  EXPECT_EQ(field_of({{"memetic", {{"shape_share", 0}}}}), "memetic.shape_share");
  EXPECT_EQ(field_of({{"memetic", {{"score_cache", -1}}}}), "memetic.score_cache");
  EXPECT_EQ(field_of({{"restart", {{"stagnation_seconds", -5}}}}), "restart.stagnation_seconds");
  EXPECT_EQ(field_of({{"restart", {{"min_gain", 1}}}}), "restart.min_gain");
  EXPECT_EQ(field_of({{"restart", {{"stagnation_tournaments", -1}}}}), "restart.stagnation_tournaments");
  EXPECT_EQ(field_of({{"restart", {{"stagnation_tournaments", 4000}, {"stagnation_seconds", 60}}}}),
            "restart.stagnation_tournaments");
  EXPECT_EQ(field_of({{"restart", {{"patience", -1}}}}), "restart.patience");
  EXPECT_EQ(field_of({{"restart", {{"keep_leaders", "no"}}}}), "restart.keep_leaders");
  EXPECT_EQ(field_of({{"restart", {{"trap_tournaments", -1}}}}), "restart.trap_tournaments");
  EXPECT_EQ(field_of({{"restart", {{"trap_tournaments", 1.5}}}}), "restart.trap_tournaments");
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
  // A given min_steps above the sequence's length, and a kind outside allowed_kinds, were
  // silently overridden or ignored.
  EXPECT_EQ(field_of({{"min_steps", 4}, {"kind_sequence", {"xsr", "mul"}}}), "kind_sequence");
  EXPECT_EQ(field_of({{"allowed_kinds", {"mul-const"}}, {"kind_sequence", {"mul", "xsr"}}}), "kind_sequence[1]");
  EXPECT_EQ(field_of({{"allowed_kinds", {"mul-const", "xsr"}}, {"kind_sequence", {"mul", "xsr"}}}), "(accepted)");
  EXPECT_EQ(field_of({{"width", 1}, {"allowed_kinds", {"xsr", "rot"}}}), "allowed_kinds");
  EXPECT_EQ(field_of({{"mutation", {{"constant_small", 0}, {"constant_large", 0}, {"swap", 0},
                                    {"remove", 0}, {"insert", 0}}}}),
            "mutation");
  EXPECT_EQ(field_of({{"precision", {{"initial_samples", 1 << 20}, {"max_samples", 1 << 16}}}}),
            "precision.initial_samples");
  EXPECT_EQ(field_of({{"local_search", {{"first_samples", 1 << 20}, {"max_samples", 1 << 16}}}}),
            "local_search.first_samples");
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
