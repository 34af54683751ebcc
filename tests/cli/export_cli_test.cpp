// mixforge export: the CLI face of shader/export.hpp (the text itself is tested in
// tests/shader; here: options, output, bundle and error exits).
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "run_command.hpp"

namespace {
const std::string lowbias32 = "x ^= x >> 16; x *= 0x7feb352d; x ^= x >> 15; x *= 0x846ca68b; x ^= x >> 16;";
const std::string w7a = "x ^= x >> 3; x *= 107; x ^= x >> 3; x *= 69; x ^= x >> 4; x &= 127;";
const std::string w7b = "x ^= x >> 3; x *= 67; x ^= x >> 4; x *= 21; x ^= x >> 3; x &= 127;";
const std::string w32a = "x ^= x >> 16; x *= 322022693; x ^= x >> 14; x *= 3968764237; x ^= x >> 19;";
const std::string w32b = "x ^= x >> 16; x *= 322022693; x ^= x >> 13; x *= 2235360983; x ^= x >> 18;";
}  // namespace

TEST(ExportCli, WritesTheFunctionForEachTarget) {
  for (const char* t : {"glsl", "hlsl", "wgsl", "msl", "cuda", "cpp"}) {
    const auto r = run_mixforge(std::string("export --target ") + t + " --name hash " + quoted(lowbias32));
    ASSERT_EQ(r.exit_code, 0) << t << ": " << r.out;
    EXPECT_NE(r.out.find("hash("), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("chi2: not scored"), std::string::npos) << r.out;  // width 32: not scored here
  }
}

TEST(ExportCli, SmallWidthsGetTheirExactScoreInTheHeader) {
  const auto r = run_mixforge("export --target glsl " + quoted("x ^= x >> 4; x *= 67; x ^= x >> 3; x *= 101; x ^= x >> 4; x &= 127;"));
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("exact chi2: 0.244140625"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("uint mix7_"), std::string::npos) << r.out;
}

TEST(ExportCli, Vec4SeededPacksTheWriteUpLanes) {
  const auto r = run_mixforge("export --target glsl --name Permute4 --decimal --seeded --vec4 " + quoted(w7a) + " " +
                              quoted(w7b) + " " + quoted(w32a) + " " + quoted(w32b));
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("uvec4 Permute4(uvec4 v, uint seed)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("uvec4(107u, 67u, 322022693u, 322022693u)"), std::string::npos) << r.out;
}

TEST(ExportCli, BundleHasEveryTargetAndOutputFileWorks) {
  char path[] = "/tmp/mixforge-export-XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  close(fd);
  const auto r = run_mixforge("export --bundle --range -o " + std::string(path) + " " + quoted(lowbias32));
  ASSERT_EQ(r.exit_code, 0) << r.out;
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
  EXPECT_NE(r.out.find("unknown --target \"vhdl\""), std::string::npos) << r.out;
  r = run_mixforge("export --target wgsl --width 64 " + quoted("x ^= x >> 31; x *= 0x7fb5d329728ea185;"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.out.find("WGSL has no 64-bit integer type"), std::string::npos) << r.out;
  r = run_mixforge("export --target glsl --vec4 " + quoted(w7a) + " " + quoted("x *= 3; x &= 127;"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.out.find("same step kinds"), std::string::npos) << r.out;
  r = run_mixforge("export --target glsl --name 'bad-name' " + quoted(lowbias32));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.out.find("function name \"bad-name\""), std::string::npos) << r.out;
  r = run_mixforge("export --target glsl " + quoted("x *= 4;"));
  EXPECT_EQ(r.exit_code, 2) << r.out;
  r = run_mixforge("export --target glsl");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.out.find("PROGRAM"), std::string::npos) << r.out;
  r = run_mixforge("export --target glsl --range " + quoted("x *= 3; x &= 0xffff;"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.out.find("--range needs a 32-bit program"), std::string::npos) << r.out;
}
