// WGSL exports: validated by a real WGSL front end (Chromium's Tint via WebGPU
// createShaderModule + getCompilationInfo) and executed as WebGPU compute shaders in
// headless Chromium (SwiftShader) over >= 2^20 inputs per case; outputs must equal the
// reference interpreter bit for bit. Needs node, chromium and `npm ci` in tests/shader.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <filesystem>

#include "cases.hpp"
#include "shader/export.hpp"
#include "tool_support.hpp"

namespace mixforge::test {
namespace {

namespace fs = std::filesystem;

// SwiftShader runs WebGPU on the CPU: 2^18 inputs per case keeps the default run short;
// the "long" build of this test (shader_wgsl_long_tests) uses 2^20.
// (Separate suite names: CTest test names must differ between the two binaries.)
#ifndef MIXFORGE_WGSL_COUNT
#define MIXFORGE_WGSL_COUNT (std::size_t{1} << 18)
#define MIXFORGE_WGSL_SUITE WgslExport
#else
#define MIXFORGE_WGSL_SUITE WgslExportFull
#endif

std::string wgsl_harness(const Case& c, const std::string& code) {
  std::string in_type = "u32", call;
  switch (c.kind) {
    case CaseKind::scalar: call = "data_out[i] = " + c.call + "(data_in[i]);"; break;
    case CaseKind::range:
      in_type = "vec2<u32>";
      call = "data_out[i] = " + c.call + "(data_in[i].x, data_in[i].y);";
      break;
    case CaseKind::vec4:
      in_type = "vec4<u32>";
      call = "data_out[i] = " + c.call + "(data_in[2u * i]" + (c.request.seeded ? ", data_in[2u * i + 1u].x" : "") + ");";
      break;
  }
  const std::string out_type = c.kind == CaseKind::vec4 ? "vec4<u32>" : "u32";
  return code + "\n@group(0) @binding(0) var<storage, read> data_in: array<" + in_type + ">;\n" +
         "@group(0) @binding(1) var<storage, read_write> data_out: array<" + out_type + ">;\n" +
         "@compute @workgroup_size(64)\nfn main(@builtin(global_invocation_id) id: vec3<u32>) {\n"
         "  let i = id.x;\n  " + call + "\n}\n";
}

TEST(MIXFORGE_WGSL_SUITE, ValidatesAndMatchesInterpreterInChromiumWebGpu) {
  const std::string node = find_tool("node");
  ASSERT_FALSE(node.empty()) << "node not found (Debian package nodejs)";
  ASSERT_TRUE(fs::exists("/usr/bin/chromium") || std::getenv("CHROMIUM")) << "chromium not found (Debian package chromium)";
  const fs::path tests = fs::path(MIXFORGE_SOURCE_DIR) / "tests" / "shader";
  ASSERT_TRUE(fs::exists(tests / "node_modules" / "playwright-core"))
      << "playwright-core missing: run `npm ci` in " << tests;

  ScratchDir dir("wgsl");
  std::vector<Case> cases = execution_cases(/*wide=*/false, MIXFORGE_WGSL_COUNT);
  nlohmann::json manifest = nlohmann::json::array();
  for (Case& c : cases) {
    c.request.target = shader::Target::wgsl;
    write_text(dir / (c.label + ".wgsl"), wgsl_harness(c, shader::export_code(c.request)));
    write_words(dir / (c.label + ".in"), c.input);
    manifest.push_back({{"label", c.label}, {"count", c.count}, {"out_words", c.out_words()}});
  }
  // A deliberately invalid shader: the validator must reject it (WGSL requires
  // parentheses when mixing ^ and >>), or this test proves nothing.
  write_text(dir / "invalid_control.wgsl",
             "fn f(x: u32) -> u32 { return x ^ x >> 3u; }\n@compute @workgroup_size(64)\n"
             "fn main() { _ = f(1u); }\n");
  write_words(dir / "invalid_control.in", {0});
  manifest.push_back({{"label", "invalid_control"}, {"count", 64}, {"out_words", 1}});
  write_text(dir / "manifest.json", manifest.dump());

  const CommandResult r = run_command({node, (tests / "wgsl_runner.mjs").string(), dir.path().string()});
  ASSERT_EQ(r.exit_code, 0) << r.output;

  const auto control = nlohmann::json::parse(read_text(dir / "invalid_control.messages.json"));
  bool rejected = false;
  for (const auto& m : control) rejected = rejected || m["type"] == "error";
  EXPECT_TRUE(rejected) << "the WGSL validator accepted an invalid shader: " << control.dump();

  for (const Case& c : cases) {
    SCOPED_TRACE(c.label);
    const auto messages = nlohmann::json::parse(read_text(dir / (c.label + ".messages.json")));
    for (const auto& m : messages)
      EXPECT_NE(m["type"], "error") << m.dump() << "\n" << read_text(dir / (c.label + ".wgsl"));
    ASSERT_TRUE(fs::exists(dir / (c.label + ".out"))) << r.output;
    EXPECT_EQ(compare(c, read_words(dir / (c.label + ".out"))), "");
  }
}

}  // namespace
}  // namespace mixforge::test
