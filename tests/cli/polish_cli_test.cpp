// mixforge polish (issue 52 part 4) end to end: from hash-prospector's published 16-bit
// 2-round function with one bit flipped, the climb's --json line names the published
// function with its exact chi2; `evolve --seed-program` does the same inside a run; bad
// input names its option.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "run_command.hpp"
#include "support/process.hpp"

namespace {

// [8 a3d3 7 4b2d 9], exact chi2 0.0067334547638893127 (tests/data/records.json), with bit 15
// of its second multiplier flipped.
const std::string one_flip_away = "x ^= x >> 8; x *= 0xa3d3; x ^= x >> 7; x *= 0xcb2d; x ^= x >> 9;";
const std::string published_text = "x ^= x >> 8;\nx *= 0xa3d3;\nx ^= x >> 7;\nx *= 0x4b2d;\nx ^= x >> 9;";

nlohmann::json last_line(const std::string& output) {
  const auto from = output.rfind("\n{");
  return nlohmann::json::parse(output.substr(from == std::string::npos ? 0 : from + 1));
}

}  // namespace

TEST(PolishCli, TheJsonLineNamesTheLowerFunctionItClimbedTo) {
  const auto r = run_mixforge("polish --json --width 16 " + quoted(one_flip_away));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("move to xsr 8, mul 0xa3d3, xsr 7, mul 0x4b2d, xsr 9"), std::string::npos) << r.output;
  const nlohmann::json j = last_line(r.output);
  EXPECT_EQ(j["best"]["text"], published_text);
  EXPECT_NEAR(j["best"]["chi2_exact"].get<double>(), 0.0067334547638893127, 1e-15);
  EXPECT_GT(j["start"]["chi2_exact"].get<double>(), j["best"]["chi2_exact"].get<double>());
  EXPECT_EQ(j["moves"], 1);
  EXPECT_TRUE(j["local_optimum"].get<bool>());
  EXPECT_GT(j["scored"].get<int>(), 36);  // every single move of the end point, then its pairs
  EXPECT_GE(j["seconds"].get<double>(), 0);
}

TEST(PolishCli, EvolveFromASeedProgramEndsAtTheSameFunction) {
  const mixforge::test::TempDir scratch("polish-seed");
  const auto r = run_mixforge("evolve --width 16 --tournaments 100 --pool 30 --threads 1 --json --seed-program " +
                              quoted(one_flip_away) + " --data " + scratch.path().string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const nlohmann::json j = last_line(r.output);
  EXPECT_EQ(j["best"][0]["text"], published_text);
  EXPECT_TRUE(j["best"][0]["exact"].get<bool>());
  // `runs show` says where the stored run's climb ended.
  const std::string run_id = j["run_id"];
  const auto show = run_mixforge("runs show " + run_id + " --data " + scratch.path().string());
  ASSERT_EQ(show.exit_code, 0) << show.output;
  EXPECT_NE(show.output.find(
                "climb 1: xsr 8, mul 0xa3d3, xsr 7, mul 0x4b2d, xsr 9 chi2 0.006733454764 (exact), 1 move, "),
            std::string::npos)
      << show.output;
}

TEST(PolishCli, BadInputNamesTheOption) {
  for (const auto& [args, option] : std::vector<std::pair<std::string, std::string>>{
           {"polish --width 16 --seconds 0 " + quoted(one_flip_away), "--seconds"},
           {"polish --width 16 --seconds -3 " + quoted(one_flip_away), "--seconds"},
           {"polish --width 40 " + quoted("x ^= x >> 3; x *= 0x9e3779b9;"), "--width"},
           {"polish --width 16 " + quoted("x ^= x >> 3; x &= 0xff;"), "PROGRAM"},
           {"polish " + quoted("x ^= x >> 3;\nx *= ;"), "PROGRAM"},
           {"polish --width 16 --move-order sideways " + quoted(one_flip_away), "--move-order"},
       }) {
    const auto r = run_mixforge(args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.output;
    EXPECT_NE(r.output.find(option), std::string::npos) << args << "\n" << r.output;
  }
}
