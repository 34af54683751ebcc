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
                        "exact", "seconds", "device"})
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
  // The field in the CLI's spelling, then the use case's message (app/program_input.hpp).
  EXPECT_EQ(r.output, "mixforge: PROGRAM: program text 2:6: multiplier 0x10 is even; a multiply step needs an odd constant\n");
  r = run_mixforge("eval --exact --width 40 " + quoted("x *= 3"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("--exact: exact evaluation needs width <= 32"), std::string::npos) << r.output;
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

// A GPU that fails while scoring, by fault injection (MIXFORGE_FAULT_GPU: every PTX module
// load, or every launch, fails as a CUDA error; without a GPU a stand-in GPU is selected
// and fails the same way). Under auto eval scores on the CPU (the same score), warns once
// on stderr and says so in its JSON device; under gpu the error surfaces (exit 1).
TEST(EvalCli, AutoFallsBackToTheCpuWhenTheGpuFails) {
  // 24 bits: above the width exact counts are interpreted at, so the GPU counts them.
  const std::string p24 = "x ^= x >> 12; x *= 0x9e3779; x ^= x >> 11; x *= 0x2c1b3d; x ^= x >> 13";
  auto with_fault = [](const std::string& fault, const std::string& args) {
    return run_mixforge_with("MIXFORGE_FAULT_GPU=" + fault, args);
  };
  // stderr (notices) first, then the JSON on the last line.
  auto last_json = [](const std::string& output) {
    const auto end = output.find_last_not_of('\n');
    const auto start = output.rfind('\n', end);
    return nlohmann::json::parse(output.substr(start == std::string::npos ? 0 : start + 1));
  };
  auto count = [](const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
  };
  const auto cpu = run_mixforge("eval --device cpu --width 24 --json " + quoted(p24));
  ASSERT_EQ(cpu.exit_code, 0) << cpu.output;
  const auto want = nlohmann::json::parse(cpu.output);
  EXPECT_EQ(want["device"], (nlohmann::json{{"kind", "cpu"}, {"name", "cpu"}}));

  auto r = with_fault("load", "eval --device auto --width 24 --json " + quoted(p24));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto j = last_json(r.output);
  EXPECT_EQ(j["chi2"], want["chi2"]) << "the CPU's exact score, to the last bit";
  EXPECT_EQ(j["exact"], true);
  EXPECT_EQ(j["device"]["kind"], "cpu") << j.dump();
  EXPECT_EQ(j["device"]["fallback"]["reason"],
            "cuda: cuModuleLoadDataEx failed: an injected fault (MIXFORGE_FAULT_GPU=load)");
  EXPECT_EQ(count(r.output, "mixforge: warning: GPU scoring failed on "), 1u) << r.output;
  EXPECT_NE(r.output.find("; the CPU scores from now on: cuda: cuModuleLoadDataEx failed"), std::string::npos)
      << r.output;

  // Many programs scored in parallel (--batch), sampled at the GPU's threshold: one
  // warning, every line the CPU's score.
  const std::string wide = "x ^= x >> 20; x *= 0x9e3779b97f; x ^= x >> 19";
  const std::string lines = wide + "\n" + wide + "\n" + wide + "\n" + wide;
  const auto cpu_batch = run_mixforge("eval --device cpu --width 40 --samples 8388608 --batch -", lines);
  ASSERT_EQ(cpu_batch.exit_code, 0) << cpu_batch.output;
  r = run_mixforge_with("MIXFORGE_FAULT_GPU=launch", "eval --device auto --width 40 --samples 8388608 --batch -",
                        lines);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(count(r.output, "mixforge: warning: GPU scoring failed on "), 1u) << r.output;
  std::istringstream out(r.output);
  int scored = 0;
  for (std::string line; std::getline(out, line);) {
    if (line.empty() || line[0] != '{') continue;
    const auto k = nlohmann::json::parse(line);
    EXPECT_EQ(k["chi2"], last_json(cpu_batch.output)["chi2"]) << line;
    EXPECT_EQ(k["device"]["fallback"]["reason"],
              "cuda: cuLaunchKernel failed: an injected fault (MIXFORGE_FAULT_GPU=launch)")
        << line;
    ++scored;
  }
  EXPECT_EQ(scored, 4) << r.output;

  // --device gpu: the failure is the answer, as before.
  r = with_fault("load", "eval --device gpu --width 24 --json " + quoted(p24));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("mixforge: error: cuda: cuModuleLoadDataEx failed: an injected fault"), std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("warning"), std::string::npos) << r.output;

  r = with_fault("sometimes", "eval --device auto --width 24 " + quoted(p24));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_EQ(r.output, "mixforge: MIXFORGE_FAULT_GPU=\"sometimes\" is not one of load, launch\n");
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
