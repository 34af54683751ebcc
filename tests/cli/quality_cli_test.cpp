// mixforge quality: human and JSON output, determinism, stored functions and their cached
// reports, and bad input (exit 2 with the reason).
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <nlohmann/json.hpp>

#include "support/process.hpp"
#include "run_command.hpp"

namespace {
namespace quality_cli {

const std::string triple32 =
    "x ^= x >> 17; x *= 0xed5ad4bb; x ^= x >> 11; x *= 0xac4c1b51; x ^= x >> 15; x *= 0x31848bab; x ^= x >> 14;";

nlohmann::json run_json(const std::string& args, int expected_exit = 0) {
  const auto r = run_mixforge("quality --json " + args);
  EXPECT_EQ(r.exit_code, expected_exit) << r.output;
  return nlohmann::json::parse(r.output, nullptr, false);
}

// The measures only: timings and the cache fields differ between runs.
nlohmann::json measures(nlohmann::json j) {
  j.erase("seconds");
  j.erase("cached");
  j.erase("computed_at");
  if (j["counter_battery"].contains("transforms")) {
    j["counter_battery"].erase("seconds");
    for (auto& t : j["counter_battery"]["transforms"]) t.erase("seconds");
  }
  return j;
}

}  // namespace quality_cli
}  // namespace

TEST(QualityCli, HumanOutputNamesEveryMeasure) {
  const auto r = run_mixforge("quality --size quick --width 16 " +
                              quoted("x ^= x >> 8; x *= 0x88b5; x ^= x >> 7; x *= 0xdb2d; x ^= x >> 9;"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* s :
       {"single-bit avalanche", "exact (all 2^16 inputs)", "worst cell", "bit independence", "worst pair",
        "higher-order avalanche", "2 bits flipped", "3 bits flipped", "second-order differential", "pairs (a, b)",
        "120 single-bit, 16 weight-2", "every coset x + <a, b> (2^14 per pair)", "bits of D", "weight of D",
        "weight by pair", "all three", "counter battery", "skipped: width 16 < 32"})
    EXPECT_NE(r.output.find(s), std::string::npos) << s << "\n" << r.output;
}

TEST(QualityCli, JsonIsDeterministicAndSeparatesGoodFromWeak) {
  using namespace quality_cli;
  const auto a = run_json("--size quick --no-battery " + quoted(triple32));
  ASSERT_TRUE(a.is_object());
  EXPECT_EQ(a["version"], 2);
  EXPECT_EQ(a["function"]["width"], 32);
  EXPECT_EQ(a["options"]["size"], "quick");
  EXPECT_EQ(a["options"]["seed"], 1);
  EXPECT_FALSE(a["cached"].get<bool>());
  EXPECT_FALSE(a["avalanche"]["exact"].get<bool>());  // quick: exact only up to 24 bits
  EXPECT_EQ(a["bit_independence"]["verdict"], "passed");
  ASSERT_EQ(a["higher_order"].size(), 2u);
  for (const auto& h : a["higher_order"]) EXPECT_EQ(h["verdict"], "passed") << h.dump();
  // The second-order differential: no cell of D is far from 1/2, but triple32 loses a round
  // for {e_14, e_31} (its first shift is 17), and the weight of D pair by pair sees it.
  const auto& so = a["second_order_differential"];
  EXPECT_FALSE(so["exact"].get<bool>());
  EXPECT_EQ(so["samples_per_pair"], 1 << 14);
  EXPECT_EQ(so["bits"]["verdict"], "passed");
  EXPECT_EQ(so["weight_by_pair"]["worst_pair"]["a"], nlohmann::json::array({14}));
  EXPECT_EQ(so["weight_by_pair"]["worst_pair"]["b"], nlohmann::json::array({31}));
  EXPECT_NE(so["verdict"], "failed");  // weak at 2^14 inputs per pair; failed at the standard size
  EXPECT_EQ(a["counter_battery"]["status"], "skipped");
  EXPECT_EQ(a["counter_battery"]["reason"], "not requested");
  // The same program and options: the same measures; another seed: other samples.
  EXPECT_EQ(measures(run_json("--size quick --no-battery " + quoted(triple32))), measures(a));
  EXPECT_NE(measures(run_json("--size quick --no-battery --seed 2 " + quoted(triple32)))["bit_independence"]["chi2"],
            a["bit_independence"]["chi2"]);
  // A lone multiply fails bit independence and higher-order avalanche.
  const auto weak = run_json("--size quick --no-battery " + quoted("x *= 0x9e3779b9;"));
  EXPECT_EQ(weak["bit_independence"]["verdict"], "failed");
  for (const auto& h : weak["higher_order"]) EXPECT_EQ(h["verdict"], "failed");
  EXPECT_EQ(weak["second_order_differential"]["verdict"], "failed");
}

TEST(QualityCli, RrcDepthOfTheBestPublishedTwoRoundFunction) {
  using namespace quality_cli;
  // The published depth (tests-for-randomness: 13, failing "uniform"), reproduced.
  const auto r = run_json("--size quick --no-battery --rrc --rrc-cap 16 " +
                          quoted("x ^= x >> 16; x *= 0x21f0aaad; x ^= x >> 15; x *= 0x735a2d97; x ^= x >> 15;"));
  ASSERT_TRUE(r.is_object());
  EXPECT_TRUE(r["options"]["rrc"].get<bool>());
  EXPECT_EQ(r["options"]["rrc_cap_log2"], 16);
  EXPECT_EQ(r["rrc"]["depth_log2"], 13);
  EXPECT_EQ(r["rrc"]["cap_log2"], 16);
  EXPECT_FALSE(r["rrc"]["passed_cap"].get<bool>());
  EXPECT_EQ(r["rrc"]["first_failure"]["test"], "uniform");
  EXPECT_LT(r["rrc"]["first_failure"]["p"].get<double>(), 1e-9);
  EXPECT_EQ(r["rrc"]["streams"], 128);
  EXPECT_TRUE(run_json("--size quick --no-battery " + quoted(triple32))["rrc"].is_null());
  const auto human = run_mixforge("quality --size quick --no-battery --rrc --rrc-cap 12 " + quoted(triple32));
  ASSERT_EQ(human.exit_code, 0) << human.output;
  EXPECT_NE(human.output.find("RRC depth               >12 (passed the cap 2^12), 128 streams"), std::string::npos)
      << human.output;
}

TEST(QualityCli, BadInputExitsWithTwoAndSaysWhy) {
  struct Case {
    std::string args, message;
  };
  for (const Case& c : std::vector<Case>{
           {"quality " + quoted("x *= 0x10;"), "1:6: multiplier 0x10 is even"},
           {"quality", "quality needs a PROGRAM or a FUNCTION_ID"},
           {"quality --size huge " + quoted("x *= 3;"), "--size: \"huge\" is not quick or standard"},
           {"quality --width 0 " + quoted("x *= 3;"), "--width"},
           {"quality --refresh " + quoted("x *= 3;"), "--refresh: refresh applies to a stored function"},
           {"quality --rrc-cap 20 " + quoted("x *= 3;"), "--rrc-cap: a cap applies with the RRC battery (rrc) only"},
           {"quality --rrc --rrc-cap 50 " + quoted("x *= 3;"), "--rrc-cap: 50 is outside 11..40"},
           {"quality --rrc --width 6 " + quoted("x *= 3;"), "--rrc: the RRC battery needs a function of 8 to 64 bits"},
           {"quality --data /nonexistent-dir 0123456789abcdef", "no mixforge database in /nonexistent-dir"},
       }) {
    const auto r = run_mixforge(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args << "\n" << r.output;
    EXPECT_NE(r.output.find(c.message), std::string::npos) << c.args << "\n" << r.output;
  }
}

TEST(QualityCli, StoredFunctionsAreCachedInTheDatabase) {
  using namespace quality_cli;
  const mixforge::test::TempDir scratch("quality-db");
  const std::string dir = scratch.path().string();
  const auto e = run_mixforge("evolve --width 7 --max-steps 5 --kind-sequence xsr,mul,xsr,mul,xsr --seconds 2 "
                              "--pool 100 --threads 1 --json --data " + dir);
  ASSERT_EQ(e.exit_code, 0) << e.output;
  const auto j = nlohmann::json::parse(e.output.substr(e.output.rfind("\n{") + 1));
  const std::string id = j["best"][0]["id"];
  const auto first = run_json("--size quick --data " + dir + " " + id);
  ASSERT_TRUE(first.is_object());
  EXPECT_EQ(first["function"]["id"], id);
  EXPECT_FALSE(first["cached"].get<bool>());
  const auto second = run_json("--size quick --data " + dir + " " + id);
  EXPECT_TRUE(second["cached"].get<bool>());
  EXPECT_EQ(second["computed_at"], first["computed_at"]);
  EXPECT_EQ(measures(second), measures(first));
  // Other options are another report; --refresh computes again.
  EXPECT_FALSE(run_json("--size quick --seed 5 --data " + dir + " " + id)["cached"].get<bool>());
  const auto refreshed = run_json("--size quick --refresh --data " + dir + " " + id);
  EXPECT_FALSE(refreshed["cached"].get<bool>());
  EXPECT_EQ(measures(refreshed), measures(first));
  // An id the database does not hold.
  const auto r = run_mixforge("quality --data " + dir + " 0123456789abcdef");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("no function with id 0123456789abcdef"), std::string::npos) << r.output;
}
