// mixforge evolve with the RRC term in its objective (--rrc-weight, --rrc-cap,
// --rrc-chi2-bound): the run's configuration, each leader's depth in the output, and
// bad values refused with the option's name.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "run_command.hpp"
#include "support/process.hpp"

TEST(EvolveRrcCli, LeadersShowTheirDepthAndBadValuesNameTheOption) {
  const mixforge::test::TempDir scratch("evolve-rrc");
  const std::string dir = scratch.path().string();
  const auto r = run_mixforge(
      "evolve --width 16 --kind-sequence xsr,mul,xsr,mul,xsr --tournaments 200 --pool 50 "
      "--threads 1 --rrc-weight 0.001 --rrc-cap 14 --data " +
      dir);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("RRC depth "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("(cap 14)"), std::string::npos) << r.output;
  const auto j = run_mixforge(
      "evolve --width 16 --tournaments 50 --pool 20 --threads 1 --rrc-weight 0.001 "
      "--rrc-cap 14 --json --data " +
      dir);
  ASSERT_EQ(j.exit_code, 0) << j.output;
  const auto out = nlohmann::json::parse(j.output.substr(j.output.rfind("\n{") + 1));
  const auto& o = out["best"][0]["objective"];
  EXPECT_EQ(o["rrc_cap_log2"], 14);
  EXPECT_TRUE(o["rrc_depth_log2"].is_number_integer()) << o.dump();
  for (const auto& [args, message] : std::vector<std::pair<std::string, std::string>>{
           {"--rrc-cap 9 --rrc-weight 1", "--rrc-cap"},
           {"--rrc-weight -1", "--rrc-weight"},
           {"--width 7 --rrc-weight 1", "--rrc-weight: the RRC battery needs a width of 8 to 64 bits"}}) {
    const auto bad = run_mixforge("evolve --tournaments 10 --data " + dir + " " + args);
    EXPECT_EQ(bad.exit_code, 2) << args << "\n" << bad.output;
    EXPECT_NE(bad.output.find(message), std::string::npos) << args << "\n" << bad.output;
  }
}
