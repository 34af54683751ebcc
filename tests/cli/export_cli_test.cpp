// mixforge export: the CLI face of shader/export.hpp (the text itself is tested in
// tests/shader; here: options, output, bundle and error exits).
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "support/process.hpp"
#include "run_command.hpp"
#include "support/reference_functions.hpp"

namespace {
const std::string lowbias32 = mixforge::test::lowbias32_text;
const std::string w7a = "x ^= x >> 3; x *= 107; x ^= x >> 3; x *= 69; x ^= x >> 4; x &= 127;";
const std::string w7b = "x ^= x >> 3; x *= 67; x ^= x >> 4; x *= 21; x ^= x >> 3; x &= 127;";
const std::string w32a = "x ^= x >> 16; x *= 322022693; x ^= x >> 14; x *= 3968764237; x ^= x >> 19;";
const std::string w32b = "x ^= x >> 16; x *= 322022693; x ^= x >> 13; x *= 2235360983; x ^= x >> 18;";
}  // namespace

TEST(ExportCli, WritesTheFunctionForEachTarget) {
  for (const char* t : {"glsl", "hlsl", "wgsl", "msl", "cuda", "cpp"}) {
    const auto r = run_mixforge(std::string("export --no-score --target ") + t + " --name hash " + quoted(lowbias32));
    ASSERT_EQ(r.exit_code, 0) << t << ": " << r.output;
    EXPECT_NE(r.output.find("hash("), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("chi2: not scored"), std::string::npos) << r.output;
  }
}

TEST(ExportCli, ThirtyTwoBitProgramsCarryTheirExactScore) {
  const auto r = run_mixforge("export --target cuda " + quoted(lowbias32));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("exact chi2: 1.5418"), std::string::npos) << r.output;
  // Wider than 32 bits: no exact score is possible.
  const auto w = run_mixforge("export --target cpp --width 40 " + quoted("x ^= x >> 20; x *= 0x9e3779b97f;"));
  ASSERT_EQ(w.exit_code, 0) << w.output;
  EXPECT_NE(w.output.find("chi2: not scored"), std::string::npos) << w.output;
}

TEST(ExportCli, SmallWidthsGetTheirExactScoreInTheHeader) {
  const auto r = run_mixforge("export --target glsl " + quoted("x ^= x >> 4; x *= 67; x ^= x >> 3; x *= 101; x ^= x >> 4; x &= 127;"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("exact chi2: 0.244140625"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("uint mix7_"), std::string::npos) << r.output;
}

TEST(ExportCli, Vec4SeededPacksTheWriteUpLanes) {
  const auto r = run_mixforge("export --no-score --target glsl --name Permute4 --decimal --seeded --vec4 " + quoted(w7a) + " " +
                              quoted(w7b) + " " + quoted(w32a) + " " + quoted(w32b));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("uvec4 Permute4(uvec4 v, uint seed)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("uvec4(107u, 67u, 322022693u, 322022693u)"), std::string::npos) << r.output;
}

TEST(ExportCli, BundleHasEveryTargetAndOutputFileWorks) {
  char path[] = "/tmp/mixforge-export-XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  close(fd);
  const auto r = run_mixforge("export --no-score --bundle --range -o " + std::string(path) + " " + quoted(lowbias32));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::ifstream in(path);
  const auto j = nlohmann::json::parse(in);
  std::remove(path);
  EXPECT_EQ(j["format"], "mixforge-shader-bundle");
  EXPECT_EQ(j["variant"]["range"], "jitter");
  for (const char* t : {"glsl", "hlsl", "wgsl", "msl", "cuda", "cpp"}) EXPECT_TRUE(j["code"].contains(t)) << t;
  EXPECT_EQ(j["programs"][0]["width"], 32);
}

TEST(ExportCli, BadRequestsExitWithTwoAndSayWhy) {
  auto r = run_mixforge("export --target vhdl " + quoted(lowbias32));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("--target: \"vhdl\" is not an export target"), std::string::npos) << r.output;
  r = run_mixforge("export --target wgsl --width 64 " + quoted("x ^= x >> 31; x *= 0x7fb5d329728ea185;"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("WGSL has no 64-bit integer type"), std::string::npos) << r.output;
  r = run_mixforge("export --target glsl --vec4 " + quoted(w7a) + " " + quoted("x *= 3; x &= 127;"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("same step kinds"), std::string::npos) << r.output;
  r = run_mixforge("export --target glsl --name 'bad-name' " + quoted(lowbias32));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("function name \"bad-name\""), std::string::npos) << r.output;
  r = run_mixforge("export --target glsl " + quoted("x *= 4;"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  r = run_mixforge("export --target glsl");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("PROGRAM"), std::string::npos) << r.output;
  r = run_mixforge("export --target glsl --range " + quoted("x *= 3; x &= 0xffff;"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("range needs a 32-bit program"), std::string::npos) << r.output;
}

// A mistake in the options is reported before any exact scoring: a 2^32-input scoring
// costs tens of CPU seconds, so the command runs under a CPU-time limit (not a wall-clock
// one) that a scoring would overrun and that a check of the options never reaches.
TEST(ExportCli, BadOptionsAreRefusedBeforeAnyScoring) {
  const auto limited = [](const std::string& args) {
    return mixforge::test::run_command(
        {"/bin/sh", "-c", "ulimit -t 8; exec " + mixforge::test::shell_quoted(MIXFORGE_EXE) + " " + args}, {});
  };
  auto r = limited("export --target glsl --name 'bad-name' " + quoted(lowbias32));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("function name \"bad-name\""), std::string::npos) << r.output;
  r = limited("export --target glsl --vec4 " + quoted(w32a) + " " + quoted("x *= 3;"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("same step kinds"), std::string::npos) << r.output;
  r = limited("export --target vhdl " + quoted(lowbias32));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  // Options that did nothing in this company were ignored silently.
  r = limited("export --target glsl --bundle " + quoted(lowbias32));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--bundle"), std::string::npos) << r.output;
  r = limited("export --target glsl --range-method fraction " + quoted(lowbias32));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--range-method needs --range"), std::string::npos) << r.output;
}

namespace {
// A small kind-locked 7-bit run in a fresh data directory: the database the lookups read.
struct EvolvedDatabase {
  const mixforge::test::TempDir scratch{"export-db"};
  std::string dir = scratch.path().string();
  std::string run_id;
  std::string best_id;
  double best_chi2 = 0;
  EvolvedDatabase() {
    const auto r = run_mixforge("evolve --width 7 --max-steps 5 --kind-sequence xsr,mul,xsr,mul,xsr --seconds 2 "
                                "--pool 100 --threads 1 --json --data " + dir);
    const std::string last = r.output.substr(r.output.rfind("\n{") + 1);
    const auto j = nlohmann::json::parse(last);
    run_id = j["run_id"];
    best_id = j["best"][0]["id"];
    best_chi2 = j["best"][0]["chi2_exact"];
  }
};
}  // namespace

TEST(ExportCli, FunctionIdsAndFamiliesComeFromTheDatabase) {
  const EvolvedDatabase db;
  ASSERT_FALSE(db.best_id.empty());
  // By id: the stored program with its stored exact score.
  auto r = run_mixforge("export --target cpp --data " + db.dir + " " + db.best_id);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  char want[64];
  std::snprintf(want, sizeof want, "exact chi2: %.10g", db.best_chi2);
  EXPECT_NE(r.output.find(want), std::string::npos) << r.output;
  // A stored function has its width: another --width is an error, not ignored.
  r = run_mixforge("export --target cpp --width 16 --data " + db.dir + " " + db.best_id);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--width: width 16 but function " + db.best_id + " has width 7"), std::string::npos)
      << r.output;
  // A family of two 7-bit lanes from the run's pool (all share the locked kinds).
  r = run_mixforge("export --target glsl --family 7,7 --run " + db.run_id + " --data " + db.dir);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("uvec4"), std::string::npos) << r.output;
  // And from the hall of fame (every run's bests).
  r = run_mixforge("export --target hlsl --family 7 --data " + db.dir);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // Errors: unknown id, unknown run, no database, a family no pool can supply.
  r = run_mixforge("export --target glsl --data " + db.dir + " 0123456789abcdef");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("no function with id 0123456789abcdef"), std::string::npos) << r.output;
  r = run_mixforge("export --target glsl --family 7 --run rnope --data " + db.dir);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  r = run_mixforge("export --target glsl --data /nonexistent-dir 0123456789abcdef");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("no mixforge database in /nonexistent-dir"), std::string::npos) << r.output;
  r = run_mixforge("export --target glsl --family 32,32 --run " + db.run_id + " --data " + db.dir);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("no family"), std::string::npos) << r.output;
}
