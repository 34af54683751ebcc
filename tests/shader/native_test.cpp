// C++, MSL and CUDA exports: every case's function compiled into one program with a real
// compiler (g++, clang++ with metal_shim.hpp, nvcc) and executed over >= 2^20 inputs per
// case; outputs must equal the reference interpreter bit for bit. CUDA is skipped when
// nvcc is absent; its execution (NativeCudaGpu, label `gpu`) skips without a CUDA device.
#include <gtest/gtest.h>

#include <filesystem>

#include "cases.hpp"
#include "shader/export.hpp"
#include "tool_support.hpp"

namespace mixforge::test {
namespace {

using shader::Target;
namespace fs = std::filesystem;

constexpr int no_device_exit = 77;

// Host-side loop body for one case; `in` / `out` are std::uint32_t pointers.
std::string host_call(const Case& c, Target t) {
  const bool cpp = t == Target::cpp;
  switch (c.kind) {
    case CaseKind::scalar:
      if (!c.wide) return "out[i] = " + c.call + "(in[i]);";
      return "{ std::uint64_t x = in[2 * i] | (std::uint64_t(in[2 * i + 1]) << 32); std::uint64_t y = " + c.call +
             "(x); out[2 * i] = std::uint32_t(y); out[2 * i + 1] = std::uint32_t(y >> 32); }";
    case CaseKind::range: return "out[i] = " + c.call + "(in[2 * i], in[2 * i + 1]);";
    case CaseKind::vec4: {
      const std::string args = c.request.seeded ? ", in[8 * i + 4]" : "";
      if (cpp)
        return "{ std::array<std::uint32_t, 4> v{in[8 * i], in[8 * i + 1], in[8 * i + 2], in[8 * i + 3]}; auto y = " +
               c.call + "(v" + args + "); for (int k = 0; k < 4; ++k) out[4 * i + k] = y[k]; }";
      const std::string make = t == Target::cuda ? "make_uint4" : "uint4";
      return "{ uint4 v = " + make + "(in[8 * i], in[8 * i + 1], in[8 * i + 2], in[8 * i + 3]); uint4 y = " + c.call +
             "(v" + args + "); out[4 * i] = y.x; out[4 * i + 1] = y.y; out[4 * i + 2] = y.z; out[4 * i + 3] = y.w; }";
    }
  }
  return {};
}

const char* io_helpers = R"(
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>
static std::vector<std::uint32_t> read_words(const std::string& path) {
  std::vector<std::uint32_t> v;
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) { std::perror(path.c_str()); std::exit(3); }
  std::uint32_t w;
  while (std::fread(&w, 4, 1, f) == 1) v.push_back(w);
  std::fclose(f);
  return v;
}
static void write_words(const std::string& path, const std::vector<std::uint32_t>& v) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f || std::fwrite(v.data(), 4, v.size(), f) != v.size()) { std::perror(path.c_str()); std::exit(3); }
  std::fclose(f);
}
)";

// The whole test program: exported functions, then a main that runs every case.
std::string program_source(const std::vector<Case>& cases, Target t) {
  std::string src;
  if (t == Target::msl) src += "#include \"metal_shim.hpp\"\n";
  src += "#include <array>\n#include <cstdint>\n";
  src += io_helpers;
  for (const Case& c : cases) src += "\n" + shader::export_code(c.request);
  if (t == Target::cpp) {
    // constexpr really is constexpr: the first input of each scalar case at compile time.
    for (const Case& c : cases)
      if (c.kind == CaseKind::scalar && !c.wide)
        src += "static_assert(" + c.call + "(" + std::to_string(c.input[0]) + "u) == " +
               std::to_string(c.expected[0]) + "u);\n";
  }
  if (t == Target::cuda) {
    for (const Case& c : cases)
      src += "__global__ void k_" + c.label + "(const std::uint32_t* in, std::uint32_t* out, std::size_t n) {\n"
             "  std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;\n  if (i >= n) return;\n  " +
             host_call(c, t) + "\n}\n";
    src += R"(
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e)); std::exit(4); } } while (0)
template <class K>
static void run(K kernel, const std::string& dir, const std::string& label, std::size_t n, int in_words, int out_words) {
  std::vector<std::uint32_t> in = read_words(dir + "/" + label + ".in"), out(n * out_words);
  std::uint32_t *din, *dout;
  CK(cudaMalloc(&din, in.size() * 4));
  CK(cudaMalloc(&dout, out.size() * 4));
  CK(cudaMemcpy(din, in.data(), in.size() * 4, cudaMemcpyHostToDevice));
  kernel<<<unsigned((n + 255) / 256), 256>>>(din, dout, n);
  CK(cudaGetLastError());
  CK(cudaMemcpy(out.data(), dout, out.size() * 4, cudaMemcpyDeviceToHost));
  CK(cudaFree(din));
  CK(cudaFree(dout));
  write_words(dir + "/" + label + ".out", out);
}
int main(int argc, char** argv) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) { std::puts("no CUDA device"); return 77; }
  const std::string dir = argv[1];
)";
    for (const Case& c : cases)
      src += "  run(k_" + c.label + ", dir, \"" + c.label + "\", " + std::to_string(c.count) + ", " +
             std::to_string(c.in_words()) + ", " + std::to_string(c.out_words()) + ");\n";
    src += "  return 0;\n}\n";
    return src;
  }
  src += "int main(int, char** argv) {\n  const std::string dir = argv[1];\n";
  for (const Case& c : cases) {
    src += "  {\n    std::vector<std::uint32_t> in_v = read_words(dir + \"/" + c.label + ".in\"), out_v(" +
           std::to_string(c.expected.size()) + ");\n    const std::uint32_t* in = in_v.data();\n"
           "    std::uint32_t* out = out_v.data();\n    for (std::size_t i = 0; i < " + std::to_string(c.count) +
           "; ++i) " + host_call(c, t) + "\n    write_words(dir + \"/" + c.label + ".out\", out_v);\n  }\n";
  }
  src += "  return 0;\n}\n";
  return src;
}

std::string compiler_for(Target t) {
  switch (t) {
    case Target::cpp: return find_tool("g++");
    case Target::msl: return find_tool("clang++");
    case Target::cuda: {
      std::string nvcc = find_tool("nvcc");
      if (nvcc.empty() && fs::exists("/usr/local/cuda/bin/nvcc")) nvcc = "/usr/local/cuda/bin/nvcc";
      return nvcc;
    }
    default: return {};
  }
}

// Compiles every case into one program (in `dir`); returns the executable, or fails.
fs::path build_cases(Target t, const std::string& compiler, const std::vector<Case>& cases, const ScratchDir& dir) {
  const std::string ext = t == Target::cuda ? ".cu" : ".cpp";
  const fs::path src = dir / ("all" + ext), exe = dir / "all";
  write_text(src, program_source(cases, t));
  std::vector<std::string> argv{compiler, "-std=c++17", "-O1", "-o", exe.string(), src.string()};
  if (t == Target::msl)
    argv.insert(argv.end(), {"-I", std::string(MIXFORGE_SOURCE_DIR) + "/tests/shader", "-Wall", "-Werror",
                             "-Wno-unused-function"});
  if (t == Target::cpp) argv.insert(argv.end(), {"-Wall", "-Wextra", "-Werror", "-Wno-unused-function", "-Wconversion"});
  const CommandResult r = run_command(argv);
  EXPECT_EQ(r.exit_code, 0) << compiler << " failed:\n" << r.output << "\nsource: " << src;
  return exe;
}

std::vector<Case> cases_for(Target t) {
  std::vector<Case> cases = execution_cases(true);
  for (Case& c : cases) c.request.target = t;
  return cases;
}

// Runs the built program over every case's inputs; its exit status (77: no CUDA device).
int run_cases(const fs::path& exe, const std::vector<Case>& cases, const ScratchDir& dir) {
  for (const Case& c : cases) write_words(dir / (c.label + ".in"), c.input);
  const CommandResult r = run_command({exe.string(), dir.path().string()});
  if (r.exit_code == no_device_exit) return r.exit_code;
  EXPECT_EQ(r.exit_code, 0) << r.output;
  if (r.exit_code != 0) return r.exit_code;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.label);
    EXPECT_EQ(compare(c, read_words(dir / (c.label + ".out"))), "");
  }
  return 0;
}

class NativeTest : public ::testing::TestWithParam<Target> {};

TEST_P(NativeTest, CompilesAndMatchesInterpreter) {
  const Target t = GetParam();
  const std::string compiler = compiler_for(t);
  ASSERT_FALSE(compiler.empty()) << (t == Target::msl ? "clang++ not found (Debian package clang)" : "g++ not found");
  const std::vector<Case> cases = cases_for(t);
  ScratchDir dir(std::string("native-") + std::string(shader::target_name(t)));
  const fs::path exe = build_cases(t, compiler, cases, dir);
  if (HasFailure()) return;
  EXPECT_EQ(run_cases(exe, cases, dir), 0);
}

INSTANTIATE_TEST_SUITE_P(Targets, NativeTest, ::testing::Values(Target::cpp, Target::msl),
                         [](const auto& info) { return std::string(shader::target_name(info.param)); });

// nvcc needs no GPU: the CUDA export is compiled in the default run wherever nvcc is.
TEST(NativeCuda, NvccCompilesEveryCase) {
  const std::string nvcc = compiler_for(Target::cuda);
  if (nvcc.empty()) GTEST_SKIP() << "nvcc not found (PATH, /usr/local/cuda/bin): CUDA export not compiled";
  ScratchDir dir("native-cuda");
  build_cases(Target::cuda, nvcc, cases_for(Target::cuda), dir);
}

// Execution needs a CUDA device: CTest label `gpu` (tests/shader/CMakeLists.txt).
TEST(NativeCudaGpu, MatchesInterpreterOnTheGpu) {
  const std::string nvcc = compiler_for(Target::cuda);
  if (nvcc.empty()) GTEST_SKIP() << "nvcc not found (PATH, /usr/local/cuda/bin): CUDA export not run";
  const std::vector<Case> cases = cases_for(Target::cuda);
  ScratchDir dir("native-cuda-gpu");
  const fs::path exe = build_cases(Target::cuda, nvcc, cases, dir);
  if (HasFailure()) return;
  if (run_cases(exe, cases, dir) == no_device_exit)
    GTEST_SKIP() << "CUDA export compiled with nvcc; no CUDA device to execute it";
}

}  // namespace
}  // namespace mixforge::test
