// app/export: which target, range and constants, vec4 lanes, a width beside stored
// functions, what each policy scores, and a stored function's best score.
#include <gtest/gtest.h>

#include "app/export.hpp"
#include "app/request_error.hpp"
#include "avalanche/evaluator.hpp"
#include "evolver/run/run_types.hpp"
#include "mixer/text_form.hpp"

namespace mixforge::app {
namespace {

const char* const record = "x ^= x >> 16; x *= 0x7feb352d; x ^= x >> 15; x *= 0x846ca68b; x ^= x >> 16;";

ExportSource typed(const std::string& text, int width = 32) {
  return typed_source(mixer::parse_program(text, {width}));
}

ExportRequest request(const std::string& target, std::vector<ExportSource> programs) {
  ExportRequest r;
  r.target = target;
  r.programs = std::move(programs);
  return r;
}

std::string refusal(const ExportRequest& r) {
  try {
    export_programs(r, daemon_export_policy());
  } catch (const RequestError& e) {
    return e.field() + " " + e.code();
  }
  return "(accepted)";
}

TEST(ExportRules, RefusalsNameTheField) {
  EXPECT_EQ(refusal(request("vulkan", {typed(record)})), "target unknown-export-target");
  EXPECT_EQ(refusal(request("", {typed(record)})), "target unknown-export-target");
  ExportRequest r = request("glsl", {typed(record)});
  r.range = "rounding";
  EXPECT_EQ(refusal(r), "range out-of-range");
  r = request("glsl", {typed("x ^= x >> 7;", 16)});
  r.range = "jitter";
  EXPECT_EQ(refusal(r), "range export-failed");  // a 32-bit hash only
  r = request("glsl", {typed(record)});
  r.constants = "octal";
  EXPECT_EQ(refusal(r), "constants out-of-range");
  r = request("glsl", {typed(record)});
  r.seeded = true;
  EXPECT_EQ(refusal(r), "seeded export-failed");
  r = request("glsl", {typed(record)});
  r.name = "1abc";
  EXPECT_EQ(refusal(r), "name export-failed");
  EXPECT_EQ(refusal(request("glsl", {typed(record), typed(record)})), "programs export-failed");
  // A lane whose step kinds differ from lane x: the lane is named, as programs[i].
  r = request("glsl", {typed("x ^= x >> 7;"), typed("x ^= x >> 3; x *= 0x9e3779b9;")});
  r.vec4 = true;
  EXPECT_EQ(refusal(r), "programs[1] export-failed");
}

TEST(ExportRules, TheOptionsAreCheckedWithoutPrograms) {
  // What an entry point checks before it looks stored functions up.
  ExportRequest r = request("vhdl", {});
  EXPECT_THROW(check_export_options(r), RequestError);
  r.target = "bundle";
  r.constants = "decimal";
  r.range = "fraction";
  EXPECT_NO_THROW(check_export_options(r));
  EXPECT_EQ(refusal(r), "programs export-failed");  // nothing to export
}

TEST(ExportRules, AWidthBesideAStoredFunctionMustBeItsWidth) {
  evolver::ScoredFunction f;
  f.program = mixer::parse_program(record, {32});
  ExportRequest r = request("cpp", {stored_source(f)});
  r.width = 16;
  EXPECT_EQ(refusal(r), "width width-mismatch");
  r.width = 32;
  EXPECT_EQ(refusal(r), "(accepted)");
}

TEST(ExportRules, AStoredFunctionCarriesItsExactScoreWhenKnown) {
  evolver::ScoredFunction f;
  f.program = mixer::parse_program(record, {32});
  f.chi2 = 0.5;  // the pool's sampled estimate
  f.samples = 1u << 20;
  f.chi2_exact = 0.0123;
  const ExportSource s = stored_source(f);
  ASSERT_TRUE(s.score);
  EXPECT_TRUE(s.score->exact);
  EXPECT_DOUBLE_EQ(s.score->chi2, 0.0123);
  f.chi2_exact.reset();
  EXPECT_FALSE(stored_source(f).score->exact);
  EXPECT_DOUBLE_EQ(stored_source(f).score->chi2, 0.5);
}

TEST(ExportRules, ThePoliciesScoreTypedProgramsAsDocumented) {
  const avalanche::Evaluator ev(nullptr);  // the interpreter: nothing to compile
  const ExportSource p = typed("x ^= x >> 8; x *= 0xa3d3; x ^= x >> 7; x *= 0x4b2d; x ^= x >> 9;", 16);
  const ExportResult daemon = export_programs(request("cpp", {p}), daemon_export_policy(), &ev);
  EXPECT_NE(daemon.code.find("not scored"), std::string::npos) << daemon.code;
  const ExportResult cli = export_programs(request("cpp", {p}), command_line_export_policy(), &ev);
  EXPECT_EQ(cli.code.find("not scored"), std::string::npos) << cli.code;
  EXPECT_NE(cli.code.find("exact"), std::string::npos) << cli.code;
  ExportRequest unscored = request("cpp", {p});
  unscored.score = false;
  EXPECT_NE(export_programs(unscored, command_line_export_policy(), &ev).code.find("not scored"), std::string::npos);
  EXPECT_EQ(cli.name, daemon.name);
}

TEST(ExportRules, ABundleHoldsEveryTarget) {
  const ExportResult b = export_programs(request("bundle", {typed(record)}), daemon_export_policy());
  EXPECT_TRUE(b.bundle);
  EXPECT_TRUE(b.code.empty());
  EXPECT_FALSE(b.bundle_json.empty());
}

}  // namespace
}  // namespace mixforge::app
