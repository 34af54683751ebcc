// GLSL and HLSL exports: compiled to SPIR-V by glslangValidator, checked by spirv-val,
// and executed as Vulkan compute shaders (lavapipe on CPU-only machines) over >= 2^20
// inputs per case; outputs must equal the reference interpreter bit for bit.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>

#include "cases.hpp"
#include "shader/export.hpp"
#include "tool_support.hpp"
#include "vulkan_compute.hpp"

namespace mixforge::test {
namespace {

using shader::Target;

// The statement both harnesses run per invocation (GLSL and HLSL spell it alike).
std::string harness_call(const Case& c) {
  switch (c.kind) {
    case CaseKind::scalar: return "data_out[i] = " + c.call + "(data_in[i]);";
    case CaseKind::range: return "data_out[i] = " + c.call + "(data_in[i].x, data_in[i].y);";
    case CaseKind::vec4:
      return "data_out[i] = " + c.call + "(data_in[2u * i]" + (c.request.seeded ? ", data_in[2u * i + 1u].x" : "") + ");";
  }
  return {};
}

std::string glsl_type(const Case& c, bool in) {
  if (c.kind == CaseKind::vec4) return "uvec4";  // in and out
  if (c.kind == CaseKind::range) return in ? "uvec2" : "uint";
  return c.wide ? "uint64_t" : "uint";
}

std::string glsl_harness(const Case& c, const std::string& code) {
  const std::string call = harness_call(c);
  return "#version 450\n" + code +
         "\nlayout(local_size_x = 64) in;\n"
         "layout(std430, binding = 0) readonly buffer In { " + glsl_type(c, true) + " data_in[]; };\n"
         "layout(std430, binding = 1) writeonly buffer Out { " + glsl_type(c, false) + " data_out[]; };\n"
         "void main() {\n  uint i = gl_GlobalInvocationID.x;\n  " + call + "\n}\n";
}

std::string hlsl_type(const Case& c, bool in) {
  if (c.kind == CaseKind::vec4) return "uint4";
  if (c.kind == CaseKind::range) return in ? "uint2" : "uint";
  return c.wide ? "uint64_t" : "uint";
}

std::string hlsl_harness(const Case& c, const std::string& code) {
  const std::string call = harness_call(c);
  return code + "\n[[vk::binding(0)]] StructuredBuffer<" + hlsl_type(c, true) + "> data_in;\n" +
         "[[vk::binding(1)]] RWStructuredBuffer<" + hlsl_type(c, false) + "> data_out;\n" +
         "[numthreads(64, 1, 1)]\nvoid main(uint3 id : SV_DispatchThreadID) {\n  uint i = id.x;\n  " + call + "\n}\n";
}

std::vector<std::uint32_t> load_spirv(const std::filesystem::path& p) { return read_words(p); }

class SpirvTest : public ::testing::TestWithParam<Target> {
 protected:
  static void SetUpTestSuite() {
    glslang_ = find_tool("glslangValidator");
    spirv_val_ = find_tool("spirv-val");
    try {
      vulkan_ = std::make_unique<VulkanCompute>();
    } catch (const std::exception& e) {
      vulkan_error_ = e.what();
    }
  }
  static void TearDownTestSuite() { vulkan_.reset(); }

  // Compiles to SPIR-V and validates; returns the words (empty on failure, with a test failure).
  std::vector<std::uint32_t> compile(const ScratchDir& dir, const std::string& label, const std::string& source) {
    const bool hlsl = GetParam() == Target::hlsl;
    const auto src = dir / (label + (hlsl ? ".hlsl" : ".comp"));
    const auto spv = dir / (label + ".spv");
    write_text(src, source);
    std::vector<std::string> argv{glslang_, "-V", "--target-env", "vulkan1.1"};
    if (hlsl) argv.insert(argv.end(), {"-D", "-S", "comp", "-e", "main"});
    argv.insert(argv.end(), {src.string(), "-o", spv.string()});
    CommandResult r = run_command(argv);
    if (r.exit_code != 0) {
      ADD_FAILURE() << label << ": glslangValidator failed:\n" << r.output << "\nsource:\n" << source;
      return {};
    }
    r = run_command({spirv_val_, "--target-env", "vulkan1.1", spv.string()});
    if (r.exit_code != 0) {
      ADD_FAILURE() << label << ": spirv-val failed:\n" << r.output;
      return {};
    }
    return load_spirv(spv);
  }

  static std::string glslang_, spirv_val_, vulkan_error_;
  static std::unique_ptr<VulkanCompute> vulkan_;
};
std::string SpirvTest::glslang_, SpirvTest::spirv_val_, SpirvTest::vulkan_error_;
std::unique_ptr<VulkanCompute> SpirvTest::vulkan_;

TEST_P(SpirvTest, CompilesValidatesAndMatchesInterpreterOnVulkan) {
  // Missing tools fail (CI installs glslang-tools, spirv-tools, mesa-vulkan-drivers).
  ASSERT_FALSE(glslang_.empty()) << "glslangValidator not found (Debian package glslang-tools)";
  ASSERT_FALSE(spirv_val_.empty()) << "spirv-val not found (Debian package spirv-tools)";
  ASSERT_TRUE(vulkan_) << "no Vulkan device: " << vulkan_error_ << " (Debian package mesa-vulkan-drivers)";
  const Target target = GetParam();
  ScratchDir dir(std::string("spirv-") + std::string(shader::target_name(target)));
  int executed = 0;
  for (Case& c : execution_cases(true)) {
    SCOPED_TRACE(c.label);
    c.request.target = target;
    const std::string code = shader::export_code(c.request);
    const std::string source = target == Target::hlsl ? hlsl_harness(c, code) : glsl_harness(c, code);
    const std::vector<std::uint32_t> spirv = compile(dir, c.label, source);
    if (spirv.empty()) continue;
    ASSERT_TRUE(!c.wide || vulkan_->has_int64()) << vulkan_->device_name() << " lacks shaderInt64";
    const auto bytes = vulkan_->run(spirv, c.input.data(), c.input.size() * 4, c.expected.size() * 4,
                                    static_cast<std::uint32_t>(c.count / 64));
    std::vector<std::uint32_t> out(bytes.size() / 4);
    std::memcpy(out.data(), bytes.data(), out.size() * 4);
    EXPECT_EQ(compare(c, out), "") << "on " << vulkan_->device_name() << "\nsource:\n" << source;
    ++executed;
  }
  EXPECT_GE(executed, 15);
}

INSTANTIATE_TEST_SUITE_P(Targets, SpirvTest, ::testing::Values(Target::glsl, Target::hlsl),
                         [](const auto& info) { return std::string(shader::target_name(info.param)); });

}  // namespace
}  // namespace mixforge::test
