// mixforge bake with program texts for --mixers: JIT-compiled, and each lane's exact chi2
// computed (all 2^32 inputs: minutes on 2 cores, hence the label long).
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "support/process.hpp"
#include "cli/run_command.hpp"

namespace fs = std::filesystem;

TEST(BakeCliLong, ProgramTextMixersAreJitCompiledAndScoredExactly) {
  const mixforge::test::TempDir scratch("bake-cli-long");
  const fs::path d = scratch.path();
  const auto r = run_mixforge(
      "bake --spp 4 --bounces 0 --texel 0.4 --json --out " + quoted(d.string()) +
      " --mixers 'x ^= x >> 16; x *= 0x7feb352d; x ^= x >> 15; x *= 0x846ca68b; x ^= x >> 16;'"
      " --mixers 'x ^= x >> 16; x *= 0x21f0aaad; x ^= x >> 15; x *= 0x735a2d97; x ^= x >> 15;'");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::string text = r.output;
  while (!text.empty() && text.back() == '\n') text.pop_back();
  const auto report = nlohmann::json::parse(text.substr(text.rfind('\n') == std::string::npos ? 0 : text.rfind('\n') + 1));
  EXPECT_EQ(report["mixer_origin"], "jit");
  EXPECT_EQ(report["mixers"][3]["id"], report["mixers"][1]["id"]);  // missing lanes repeat the last
  EXPECT_TRUE(report["mixers"][0]["exact"].get<bool>());
  EXPECT_GT(report["mixers"][0]["chi2"].get<double>(), 0);
  fs::remove_all(d);
}
