// PTX text for programs (no GPU needed). The text is checked for its structure here and,
// where the CUDA toolkit's ptxas is installed, assembled by it (the real consumer's
// front end: a PTX file ptxas rejects would fail at cuModuleLoadDataEx too).
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <regex>

#include "jit/engine.hpp"
#include "jit/ptx.hpp"
#include "support/process.hpp"
#include "support/random_program.hpp"
#include "support/reference_functions.hpp"

namespace mixforge::jit {
namespace {

// PATH first, then the toolkit's usual home (it is installed outside Debian's packages).
std::string ptxas_path() {
  if (auto p = test::find_tool("ptxas"); !p.empty()) return p;
  for (const char* p : {"/usr/local/cuda/bin/ptxas"})
    if (std::filesystem::exists(p)) return p;
  return {};
}

std::size_t count(const std::string& s, const std::string& part) {
  std::size_t n = 0;
  for (auto i = s.find(part); i != std::string::npos; i = s.find(part, i + part.size())) ++n;
  return n;
}

// The module header and one kernel `name`(in, out, n) as ptx.hpp promises.
void expect_ptx_structure(const std::string& ptx, const std::string& version, const std::string& gpu,
                          const std::string& name) {
  EXPECT_NE(ptx.find("\n.version " + version + "\n"), std::string::npos) << ptx;
  EXPECT_NE(ptx.find("\n.target " + gpu + "\n"), std::string::npos) << ptx;
  EXPECT_NE(ptx.find("\n.address_size 64\n"), std::string::npos) << ptx;
  EXPECT_EQ(count(ptx, ".entry "), 1u) << ptx;
  // .visible .entry name( .param .u64 a, .param .u64 b, .param .u64 c )
  const std::regex entry("\\.visible \\.entry " + name + "\\(\\s*(\\.param \\.u64 [A-Za-z0-9_]+,?\\s*){3}\\)");
  EXPECT_TRUE(std::regex_search(ptx, entry)) << "entry with three u64 parameters\n" << ptx;
  EXPECT_EQ(count(ptx, "{"), count(ptx, "}")) << ptx;
  EXPECT_NE(ptx.find("ret;"), std::string::npos) << ptx;
  // Global loads and stores of 64-bit values: out[i] = f(in[i]).
  EXPECT_NE(ptx.find("ld.global"), std::string::npos) << ptx;
  EXPECT_NE(ptx.find("st.global"), std::string::npos) << ptx;
}

// Assembles `ptx` for `gpu`; returns ptxas's complaint, or "" when it accepted the text.
std::string assemble(const std::string& ptxas, const std::string& ptx, const std::string& gpu) {
  const test::TempDir dir("ptx");
  test::write_file(dir / "k.ptx", ptx);
  const auto r = test::run_command({ptxas, "-arch=" + gpu, "-o", (dir / "k.cubin").string(), (dir / "k.ptx").string()});
  if (r.exit_code != 0) return "ptxas exit " + std::to_string(r.exit_code) + ": " + r.output + "\n" + ptx;
  if (std::filesystem::file_size(dir / "k.cubin") == 0) return "ptxas wrote an empty cubin";
  return {};
}

TEST(Ptx, Lowbias32IsAKernelForHopper) {
  const std::string ptx = emit_ptx(test::lowbias32());
  expect_ptx_structure(ptx, "8.0", "sm_90", "mixforge_apply");
  EXPECT_NE(ptx.find("mul.lo.s32"), std::string::npos) << ptx;
  EXPECT_NE(ptx.find("2146121005"), std::string::npos) << "the multiplier 0x7feb352d\n" << ptx;
  EXPECT_NE(ptx.find("-2073254261"), std::string::npos) << "the multiplier 0x846ca68b\n" << ptx;
}

TEST(Ptx, EveryWidthAndKindHasTheKernelShape) {
  std::mt19937_64 rng(17);
  for (int width = 1; width <= 64; width += 7) {
    SCOPED_TRACE("width " + std::to_string(width));
    expect_ptx_structure(emit_ptx(testing::random_program(rng, width, 12), {"sm_80", "+ptx70", "k"}), "7.0",
                         "sm_80", "k");
  }
}

TEST(Ptx, PtxasAssemblesEveryWidthAndKind) {
  const std::string ptxas = ptxas_path();
  if (ptxas.empty()) GTEST_SKIP() << "ptxas (CUDA toolkit) not found on PATH or in /usr/local/cuda/bin: PTX not assembled";
  EXPECT_EQ(assemble(ptxas, emit_ptx(test::lowbias32()), "sm_90"), "");
  std::mt19937_64 rng(17);
  for (int width = 1; width <= 64; width += 7) {
    SCOPED_TRACE("width " + std::to_string(width));
    EXPECT_EQ(assemble(ptxas, emit_ptx(testing::random_program(rng, width, 12), {"sm_80", "+ptx70", "k"}), "sm_80"), "");
  }
}

TEST(Ptx, PtxasRejectsBrokenText) {
  // The check above means something only if ptxas refuses bad PTX.
  const std::string ptxas = ptxas_path();
  if (ptxas.empty()) GTEST_SKIP() << "ptxas (CUDA toolkit) not found on PATH or in /usr/local/cuda/bin";
  std::string ptx = emit_ptx(test::lowbias32());
  ptx.replace(ptx.find("ret;"), 4, "rett;");
  EXPECT_NE(assemble(ptxas, ptx, "sm_90"), "");
}

TEST(Ptx, AnIrPassPipelineRunsBeforeCodeGeneration) {
  PtxOptions with_passes;
  with_passes.ir_passes = "function(instcombine,early-cse)";
  const std::string ptx = emit_ptx(test::lowbias32(), with_passes);
  expect_ptx_structure(ptx, "8.0", "sm_90", "mixforge_apply");
  EXPECT_NE(ptx.find("2146121005"), std::string::npos) << "the multiplier 0x7feb352d\n" << ptx;
  const std::string ptxas = ptxas_path();
  if (ptxas.empty()) GTEST_SKIP() << "ptxas (CUDA toolkit) not found on PATH or in /usr/local/cuda/bin: PTX not assembled";
  EXPECT_EQ(assemble(ptxas, ptx, "sm_90"), "");
}

TEST(Ptx, ABadIrPassPipelineIsNamed) {
  PtxOptions bad;
  bad.ir_passes = "function(no-such-pass)";
  try {
    emit_ptx(test::lowbias32(), bad);
    FAIL() << "no error for an unknown pass";
  } catch (const JitError& e) {
    EXPECT_NE(std::string(e.what()).find("\"function(no-such-pass)\""), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("ptx"), std::string::npos) << e.what();
  }
}

TEST(Ptx, RejectsInvalidPrograms) {
  EXPECT_THROW(emit_ptx(mixer::Program(8, {{mixer::StepKind::rotate, 8}})), mixer::ProgramError);
  EXPECT_THROW(emit_ptx(mixer::Program(8, {}), {"sm_nonsense", "", "k"}), JitError);
}

}  // namespace
}  // namespace mixforge::jit
