#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "run_command.hpp"
#include "support/reference_functions.hpp"

namespace {
const std::string hp16 = "x ^= x >> 8; x *= 0x88b5; x ^= x >> 7; x *= 0xdb2d; x ^= x >> 9";
const std::string writeup7 =
    "var result = seed;\n(result ^= (result >> 4));\n(result = ((result * 67) & 127));\n"
    "(result ^= (result >> 3));\n(result = ((result * 101) & 127));\n(result ^= (result >> 4));\nreturn result;";
}  // namespace

TEST(EvalCli, JsonOutputHasTheDocumentedFields) {
  const auto r = run_mixforge("eval --width 16 --json " + quoted(hp16));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto j = nlohmann::json::parse(r.output);
  for (const char* k : {"id", "width", "text", "steps", "chi2", "chi2_corrected", "chi2_stderr", "bias", "samples",
                        "exact", "seconds"})
    EXPECT_TRUE(j.contains(k)) << k;
  EXPECT_NEAR(j["chi2"].get<double>(), 0.00944598764181137, 1e-9 * 0.0094);
  EXPECT_EQ(j["exact"], true);
  EXPECT_EQ(j["samples"], 65536);
  EXPECT_FALSE(j.contains("matrix"));
}

TEST(EvalCli, WidthComesFromTheWriteUpMaskAndMatrixIsIncluded) {
  const auto r = run_mixforge("eval --json --matrix -", writeup7);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto j = nlohmann::json::parse(r.output);
  EXPECT_EQ(j["width"], 7);
  EXPECT_DOUBLE_EQ(j["chi2"].get<double>(), 0.244140625);
  ASSERT_EQ(j["matrix"].size(), 7u);
  EXPECT_EQ(j["matrix"][0].size(), 7u);
}

TEST(EvalCli, SampledModeReportsSamplesAndCorrection) {
  const auto r = run_mixforge("eval --samples 4096 --seed 5 --json " + quoted(hp16) + " --width 16");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto j = nlohmann::json::parse(r.output);
  EXPECT_EQ(j["exact"], false);
  EXPECT_EQ(j["samples"], 4096);
  EXPECT_NEAR(j["chi2"].get<double>() - j["chi2_corrected"].get<double>(), 256.0 / (2 * 4096), 1e-12);
  EXPECT_GT(j["chi2_stderr"].get<double>(), 0);
}

TEST(EvalCli, HumanOutputAndProgramFile) {
  const std::string path = std::string(MIXFORGE_BINARY_DIR) + "/eval_cli_test_program.txt";
  { std::ofstream(path) << hp16 << "\n"; }
  const auto r = run_mixforge("eval --width 16 " + path);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("chi2         0.009445987642"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("bias         8.59051"), std::string::npos) << r.output;
  std::remove(path.c_str());
}

TEST(EvalCli, BadProgramsExitTwoWithTheParserMessage) {
  auto r = run_mixforge("eval " + quoted("x ^= x >> 16;\nx *= 0x10;"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.output, "mixforge: 2:6: multiplier 0x10 is even; a multiply step needs an odd constant\n");
  r = run_mixforge("eval --exact --width 40 " + quoted("x *= 3"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("--exact needs width <= 32"), std::string::npos) << r.output;
  r = run_mixforge("eval --width 0 " + quoted("x *= 3"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  r = run_mixforge("eval");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  r = run_mixforge("eval --bogus " + quoted("x *= 3"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_EQ(r.output.find("terminate"), std::string::npos);
}

TEST(EvalCli, DeviceOptionNamesBadValuesAndSaysWhyThereIsNoGpu) {
  auto r = run_mixforge("eval --device cpu --width 16 --json " + quoted(hp16));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NEAR(nlohmann::json::parse(r.output)["chi2"].get<double>(), 0.00944598764181137, 1e-9 * 0.0094);
  r = run_mixforge("eval --device quantum " + quoted(hp16));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("quantum"), std::string::npos) << r.output;
  // gpu: the same exact score from a CUDA GPU, or exit 2 saying why there is none.
  r = run_mixforge("eval --device gpu --width 16 --json " + quoted(hp16));
  if (r.exit_code == 0) {
    const std::string json = r.output.substr(r.output.find('{'));
    EXPECT_NEAR(nlohmann::json::parse(json)["chi2"].get<double>(), 0.00944598764181137, 1e-9 * 0.0094);
  } else {
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.output.rfind("mixforge: --device gpu: cuda: ", 0), 0u) << r.output;
  }
}

TEST(EvalCli, BatchPrintsOneObjectPerLineAndFlagsBadLines) {
  const std::string path = std::string(MIXFORGE_BINARY_DIR) + "/eval_cli_test_batch.txt";
  { std::ofstream(path) << hp16 << "\nx *= 0x10\n# a comment\n  // another\nx ^= x >> 5; x *= 0x2b\n"; }
  const auto r = run_mixforge("eval --width 16 --samples 2048 --batch " + path);
  EXPECT_EQ(r.exit_code, 2);  // one line failed
  std::istringstream lines(r.output);
  std::vector<nlohmann::json> objs;
  for (std::string l; std::getline(lines, l);) objs.push_back(nlohmann::json::parse(l));
  ASSERT_EQ(objs.size(), 3u);
  EXPECT_EQ(objs[0]["samples"], 2048);
  EXPECT_EQ(objs[1]["line"], 2);
  EXPECT_EQ(objs[1]["error"], "1:6: multiplier 0x10 is even; a multiply step needs an odd constant");
  EXPECT_EQ(objs[2]["width"], 16);
  std::remove(path.c_str());
  // - reads the lines from stdin, as PROGRAM does.
  const auto piped = run_mixforge("eval --width 16 --samples 2048 --batch -", "x ^= x >> 5; x *= 0x2b");
  EXPECT_EQ(piped.exit_code, 0) << piped.output;
  EXPECT_EQ(nlohmann::json::parse(piped.output)["width"], 16);
  // A folder is no batch file (it read as empty: no output, exit 0).
  const auto folder = run_mixforge("eval --batch " + quoted(MIXFORGE_BINARY_DIR));
  EXPECT_EQ(folder.exit_code, 2) << folder.output;
  EXPECT_NE(folder.output.find("--batch"), std::string::npos) << folder.output;
}

TEST(ApplyCli, PrintsValuesInTheInputBase) {
  const auto r = run_mixforge("apply " + quoted(mixforge::test::lowbias32_text) + " 1 0x12345678");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  char want[16];
  std::snprintf(want, sizeof want, "0x%08x", mixforge::test::lowbias32_value(0x12345678));
  EXPECT_EQ(r.output, "1753845952\n" + std::string(want) + "\n");
  EXPECT_EQ(run_mixforge("apply " + quoted("x *= 3") + " 0x1ffffffff").exit_code, 2);
  EXPECT_EQ(run_mixforge("apply " + quoted("x *= 3") + " banana").exit_code, 2);
  // Every value is checked before any is printed (a script must not take half an answer).
  const auto half = run_mixforge("apply " + quoted("x *= 3") + " 1 2 banana");
  EXPECT_EQ(half.exit_code, 2);
  EXPECT_EQ(half.output.find("3\n"), std::string::npos) << half.output;
}

// PROGRAM may be the JSON form too (what eval --json and runs export --json print), and a
// path that does not exist says so instead of being parsed as program text.
TEST(ApplyCli, TakesTheJsonFormAndNamesAMissingFile) {
  const std::string json = R"({"width": 8, "steps": [{"kind": "mul-const", "constant": "0x1d"}]})";
  const auto r = run_mixforge("apply " + quoted(json) + " 3");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, "87\n");  // 3 * 29 mod 256
  const auto piped = run_mixforge("apply - 3", json);
  EXPECT_EQ(piped.output, "87\n");
  // What eval --json prints reads back as its program.
  const auto scored = run_mixforge("eval --json --width 8 " + quoted("x *= 0x1d; x ^= x >> 4"));
  ASSERT_EQ(scored.exit_code, 0) << scored.output;
  EXPECT_EQ(run_mixforge("apply - 3", scored.output).output,
            run_mixforge("apply --width 8 " + quoted("x *= 0x1d; x ^= x >> 4") + " 3").output);
  const auto bad = run_mixforge("apply " + quoted(R"({"width": 8, "steps": [{"kind": "mul-const", "constant": "0x1c"}]})") + " 3");
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  EXPECT_NE(bad.output.find("steps[0].constant"), std::string::npos) << bad.output;
  const auto broken = run_mixforge("apply " + quoted(R"({"width": 8, "steps": [)") + " 3");
  EXPECT_EQ(broken.exit_code, 2) << broken.output;
  EXPECT_NE(broken.output.find("JSON"), std::string::npos) << broken.output;
  const auto other_width = run_mixforge("apply --width 16 " + quoted(json) + " 3");
  EXPECT_EQ(other_width.exit_code, 2) << other_width.output;
  EXPECT_NE(other_width.output.find("width"), std::string::npos) << other_width.output;
  const auto missing = run_mixforge("eval nosuchfile.txt");
  EXPECT_EQ(missing.exit_code, 2) << missing.output;
  EXPECT_NE(missing.output.find("nosuchfile.txt: no such file"), std::string::npos) << missing.output;
}

TEST(InvertCli, PrintsAProgramThatUndoesTheOriginal) {
  const std::string f = mixforge::test::lowbias32_text;
  const auto inv = run_mixforge("invert " + quoted(f));
  ASSERT_EQ(inv.exit_code, 0) << inv.output;
  EXPECT_EQ(inv.output, "x ^= x >> 16;\nx *= 0x43021123;\nx ^= x >> 15;\nx ^= x >> 30;\nx *= 0x1d69e2a5;\nx ^= x >> 16;\n");
  const auto y = run_mixforge("apply " + quoted(f) + " 123456789");
  const auto back = run_mixforge("apply " + quoted(inv.output) + " " + y.output.substr(0, y.output.size() - 1));
  EXPECT_EQ(back.output, "123456789\n");
  // Another width: the text says it (a mask line), so the inverse read back is the same
  // function; without it the text was read as 32-bit (79 -> 8453, not 5).
  const std::string js = "var result = seed; (result = ((result * 67) & 127));";
  const auto inv7 = run_mixforge("invert " + quoted(js));
  ASSERT_EQ(inv7.exit_code, 0) << inv7.output;
  EXPECT_EQ(inv7.output, "result &= 0x7f;  // width 7\nresult *= 0x6b;\n");
  EXPECT_EQ(run_mixforge("apply " + quoted(inv7.output) + " 79").output, "5\n");
  const auto inv64 = run_mixforge("invert --width 64 " + quoted("x *= 3;"));
  EXPECT_EQ(inv64.output, "x &= 0xffffffffffffffff;  // width 64\nx *= 0xaaaaaaaaaaaaaaab;\n");
}
