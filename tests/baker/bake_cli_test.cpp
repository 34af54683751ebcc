// mixforge bake end to end: the real binary, its outputs, the report against its schema,
// and bad input.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>
#include <nlohmann/json.hpp>

#include "support/process.hpp"
#include "baker/integrate/image_io.hpp"
#include "cli/run_command.hpp"
#include "evolver/run/run.hpp"
#include "evolver/store/store.hpp"
#include "mixer/text_form.hpp"
#include "schema/json_schema.hpp"

namespace fs = std::filesystem;

namespace {

nlohmann::json last_line_json(const std::string& out) {
  std::string text = out;
  while (!text.empty() && text.back() == '\n') text.pop_back();
  return nlohmann::json::parse(text.substr(text.rfind('\n') == std::string::npos ? 0 : text.rfind('\n') + 1));
}

void expect_valid(const nlohmann::json& report) {
  std::ifstream in(std::string(MIXFORGE_SOURCE_DIR) + "/schema/bake_report.schema.json");
  const nlohmann::json doc = nlohmann::json::parse(in);
  std::string errors;
  for (const auto& e : mixforge::schema::JsonSchema(doc).errors(report))
    errors += mixforge::schema::dotted(e.path) + ": " + e.message + "\n";
  EXPECT_TRUE(errors.empty()) << errors;
}

}  // namespace

TEST(BakeCli, CornellWithDefaultMixersWritesEverythingAndAValidReport) {
  const mixforge::test::TempDir scratch("bake-cli");
  const fs::path d = scratch.path();
  const auto r = run_mixforge("bake cornell --spp 4 --bounces 1 --texel 0.25 --json --out " + quoted(d.string()));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto report = last_line_json(r.output);
  expect_valid(report);
  EXPECT_EQ(report["mixer_origin"], "compiled-in");
  EXPECT_EQ(report["spp"], 4);
  // The Cornell light is a small emitter: auto samples it (next-event estimation, MIS).
  EXPECT_EQ(report["light_sampling"]["mode"], "mis");
  EXPECT_EQ(report["light_sampling"]["requested"], "auto");
  EXPECT_EQ(report["light_sampling"]["heuristic"], "power");
  EXPECT_EQ(report["light_sampling"]["emissive_triangles"], 2);
  for (const auto& m : report["mixers"]) {
    EXPECT_TRUE(m["exact"].get<bool>());
    EXPECT_GT(m["chi2"].get<double>(), 0);
  }
  for (const char* f : {"lightmap.exr", "lightmap.png", "preview.png", "report.json"})
    EXPECT_TRUE(fs::exists(d / f)) << f;
  std::ifstream in(d / "report.json");
  EXPECT_EQ(nlohmann::json::parse(in)["texels"], report["texels"]);

  // A second bake measured against the first.
  const auto r2 = run_mixforge("bake --sampler sobol-owen --spp 4 --bounces 1 --texel 0.25 --json --out " +
                               quoted((d / "b").string()) + " --reference " + quoted((d / "lightmap.exr").string()) +
                               " --light-sampling hemisphere");
  ASSERT_EQ(r2.exit_code, 0) << r2.output;
  const auto report2 = last_line_json(r2.output);
  expect_valid(report2);
  EXPECT_GT(report2["rmse"].get<double>(), 0);
  EXPECT_TRUE(report2["mixers"].empty());
  EXPECT_EQ(report2["light_sampling"]["mode"], "hemisphere");
  EXPECT_TRUE(report2["light_sampling"]["heuristic"].is_null());
  fs::remove_all(d);
}

// A family from a bundle (here written by `mixforge export --bundle --no-score`) is
// JIT-compiled. (Program texts given to --mixers are also scored exactly, which takes minutes
// for 32-bit lanes: bake_cli_long_test.cpp, label long.)
TEST(BakeCli, UserMixersAreJitCompiled) {
  const mixforge::test::TempDir scratch("bake-cli");
  const fs::path d = scratch.path();
  const std::string bundle = (d / "family.json").string();
  const auto e = run_mixforge(
      "export --bundle --no-score -o " + quoted(bundle) +
      " --vec4 'x ^= x >> 16; x *= 0x7feb352d; x ^= x >> 15; x *= 0x846ca68b; x ^= x >> 16;'"
      " --vec4 'x ^= x >> 16; x *= 0x21f0aaad; x ^= x >> 15; x *= 0x735a2d97; x ^= x >> 15;'");
  ASSERT_EQ(e.exit_code, 0) << e.output;
  const auto r = run_mixforge("bake --spp 4 --bounces 0 --texel 0.4 --json --out " + quoted(d.string()) +
                              " --bundle " + quoted(bundle));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto report = last_line_json(r.output);
  expect_valid(report);
  EXPECT_EQ(report["mixer_origin"], "jit");
  EXPECT_EQ(report["mixers"][3]["id"], report["mixers"][1]["id"]);  // missing lanes repeat the last
  EXPECT_TRUE(report["mixers"][0]["chi2"].is_null());                 // the bundle carries no score
  // A bundle exported with --inverse: its code computes the inverse programs, its programs
  // are the forward ones; the bake took the forward ones silently.
  const std::string inverse = (d / "inverse.json").string();
  ASSERT_EQ(run_mixforge("export --bundle --inverse --no-score -o " + quoted(inverse) +
                         " 'x ^= x >> 16; x *= 0x7feb352d; x ^= x >> 15; x *= 0x846ca68b; x ^= x >> 16;'")
                .exit_code,
            0);
  const auto refused = run_mixforge("bake --spp 1 --bounces 0 --texel 0.4 --out " + quoted(d.string()) + " --bundle " +
                                    quoted(inverse));
  EXPECT_EQ(refused.exit_code, 2) << refused.output;
  EXPECT_NE(refused.output.find("--inverse"), std::string::npos) << refused.output;
  fs::remove_all(d);
}

TEST(BakeCli, BadInputGetsClearErrors) {
  auto r = run_mixforge("bake --sampler halton");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("unknown sampler 'halton'"), std::string::npos) << r.output;
  r = run_mixforge("bake --spp 0");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("--spp"), std::string::npos) << r.output;
  r = run_mixforge("bake nowhere.obj");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("nowhere.obj"), std::string::npos) << r.output;
  r = run_mixforge("bake --mixers 'x ^= x >> 4; x *= 3;' --texel 0.5 --spp 1 --out /tmp/mixforge_never --json"
                   " --mixers 'x *= 2;'");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("1:"), std::string::npos) << r.output;  // line:column of the even multiplier
  EXPECT_NE(r.output.find("--mixers value 2: program text 1:6:"), std::string::npos) << r.output;  // and which value
  r = run_mixforge("bake --backend opengl");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("embree, vulkan or auto"), std::string::npos) << r.output;
  r = run_mixforge("bake --seed 18446744073709551616");
  EXPECT_EQ(r.exit_code, 2);
  r = run_mixforge("bake --light-sampling nee");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("auto, mis, hemisphere"), std::string::npos) << r.output;
}

// --backend vulkan runs the Vulkan ray-tracing back end (lavapipe here and in CI), or fails
// with exit 2 and the reason where no device has ray-tracing pipelines.
TEST(BakeCli, VulkanBackendRunsOrSaysWhyNot) {
  const mixforge::test::TempDir scratch("bake-cli");
  const fs::path d = scratch.path();
  const auto r = run_mixforge("bake --backend vulkan --spp 2 --bounces 1 --texel 0.5 --json --out " +
                              quoted(d.string()));
  if (r.exit_code == 2) {
    EXPECT_NE(r.output.find("Vulkan back end is unavailable"), std::string::npos) << r.output;
    GTEST_SKIP() << "no Vulkan ray tracing here: " << r.output;
  }
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto report = last_line_json(r.output);
  expect_valid(report);
  EXPECT_EQ(report["backend"], "vulkan");
  EXPECT_TRUE(report["backend_choice"].is_null());
  EXPECT_FALSE(report["backend_device"].get<std::string>().empty());
  fs::remove_all(d);
}

// auto's trial with lavapipe tried (--auto-tries-cpu-vulkan): the report's backend_trial
// carries both measures and validates; --tiles-per-batch reaches the report.
TEST(BakeCli, AutoTrialOnRequestReportsBothBackEndsMeasures) {
  const mixforge::test::TempDir scratch("bake-cli");
  const fs::path d = scratch.path();
  const auto r = run_mixforge("bake --auto-tries-cpu-vulkan --tiles-per-batch 3 --spp 2 --bounces 0 --texel 0.5 --json "
                              "--out " + quoted(d.string()));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto report = last_line_json(r.output);
  expect_valid(report);
  if (report["backend_trial"].is_null()) GTEST_SKIP() << "no Vulkan ray tracing here: " << report["backend_choice"];
  EXPECT_EQ(report["backend_trial"]["kept"], report["backend"]);
  EXPECT_TRUE(report["backend_trial"]["embree"]["complete"].get<bool>());
  EXPECT_EQ(report["backend_trial"]["vulkan"]["tiles_per_batch"], 3);
  EXPECT_EQ(report["tiles_per_batch"], 3) << "the option holds for either back end";
  EXPECT_TRUE(report["phases"].contains("backend_trial_s"));
  fs::remove_all(d);
}

// auto says which back end ran and why.
TEST(BakeCli, AutoBackendSaysWhichRanAndWhy) {
  const mixforge::test::TempDir scratch("bake-cli");
  const fs::path d = scratch.path();
  const auto r = run_mixforge("bake --spp 1 --bounces 0 --texel 0.5 --json --out " + quoted(d.string()));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto report = last_line_json(r.output);
  expect_valid(report);
  ASSERT_TRUE(report["backend_choice"].is_string());
  EXPECT_EQ(report["backend_choice"].get<std::string>().rfind("auto: ", 0), 0u);
  if (report["backend"] == "embree") {  // and how Embree traced the coherent batches
    ASSERT_TRUE(report.contains("traversal")) << report.dump();
    EXPECT_EQ(report["traversal"].get<std::string>().rfind("coherent batches as streams (rtcIntersect1M, rtcOccluded1M)", 0), 0u)
        << report.dump();
  }
  fs::remove_all(d);
}

// --run ID: the run's best family of four same-kind 32-bit lanes, as export --family picks
// it, from a small kind-locked 32-bit run in a fresh data directory.
TEST(BakeCli, RunTakesTheRunsBestFamily) {
  const mixforge::test::TempDir scratch("bake-cli");
  const fs::path d = scratch / "run";
  fs::create_directories(d);
  const std::string data = (d / "data").string();
  auto r = run_mixforge("evolve --width 32 --max-steps 5 --kind-sequence xsr,mul,xsr,mul,xsr --seconds 2 "
                        "--pool 64 --threads 1 --json --data " + quoted(data));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string run_id = last_line_json(r.output)["run_id"];
  const auto family = run_mixforge("export --family 32,32,32,32 --bundle --run " + run_id + " --data " + quoted(data));
  ASSERT_EQ(family.exit_code, 0) << family.output;
  const auto bundle = nlohmann::json::parse(family.output);
  r = run_mixforge("bake --spp 2 --bounces 0 --texel 0.5 --json --run " + run_id + " --data " + quoted(data) +
                   " --out " + quoted((d / "out").string()));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto report = last_line_json(r.output);
  expect_valid(report);
  EXPECT_EQ(report["mixer_origin"], "jit");
  ASSERT_EQ(report["mixers"].size(), 4u);
  for (std::size_t i = 0; i < 4; ++i)
    EXPECT_EQ(report["mixers"][i]["id"], bundle["programs"][i]["id"]) << "lane " << i;
  r = run_mixforge("bake --run r000000000000 --data " + quoted(data));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("no run with id r000000000000"), std::string::npos) << r.output;
  r = run_mixforge("bake --run " + run_id + " --bundle x.json");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("one of --mixers, --bundle and --run"), std::string::npos) << r.output;
  fs::remove_all(d);
}

// A stored function whose only score is a sampled estimate below zero (noise correction can
// give that for a good function): the bake's report carries its ranking score, never a
// negative chi2 (the report schema's minimum is 0), as the daemon's bakes do.
TEST(BakeCli, StoredSampledScoresBelowZeroAreReportedAsTheirRank) {
  const mixforge::test::TempDir scratch("bake-cli");
  const fs::path d = scratch / "negative";
  fs::create_directories(d);
  const mixforge::mixer::Program p =
      mixforge::mixer::parse_program("x ^= x >> 16; x *= 0x7feb352d; x ^= x >> 15; x *= 0x846ca68b; x ^= x >> 16;");
  {
    mixforge::evolver::Store store(d / "data");
    mixforge::evolver::Member m{p, p.hash(), {-2e-6, 3e-6, 1u << 20, false}, 0};
    store.add_hall_of_fame({{mixforge::evolver::scored_function(m), "r000000000001", 1.0, 10, 1.7e9}});
  }
  auto r = run_mixforge("bake --spp 1 --bounces 0 --texel 0.5 --json --mixers " + p.id() + " --data " +
                        quoted((d / "data").string()) + " --out " + quoted((d / "out").string()));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto report = last_line_json(r.output);
  expect_valid(report);
  ASSERT_EQ(report["mixers"].size(), 4u);
  EXPECT_DOUBLE_EQ(report["mixers"][0]["chi2"].get<double>(), 3e-6);  // max(estimate, stderr, 0)
  EXPECT_FALSE(report["mixers"][0]["exact"].get<bool>());
  fs::remove_all(d);
}

// Stored functions are lanes only when they are 32-bit, checked before the bake as the
// daemon checks them (app/bake.hpp: 422 mixer-not-32-bit there), naming the --mixers value.
TEST(BakeCli, StoredFunctionsThatAreNotThirtyTwoBitAreRefused) {
  const mixforge::test::TempDir scratch("bake-cli");
  const fs::path d = scratch / "wide";
  const mixforge::mixer::Program p =
      mixforge::mixer::parse_program("x ^= x >> 33; x *= 0xff51afd7ed558ccd; x ^= x >> 33;", {64});
  {
    mixforge::evolver::Store store(d / "data");
    mixforge::evolver::Member m{p, p.hash(), {1e-3, 1e-4, 1u << 20, false}, 0};
    store.add_hall_of_fame({{mixforge::evolver::scored_function(m), "r000000000001", 1.0, 10, 1.7e9}});
  }
  const auto r = run_mixforge("bake --spp 1 --bounces 0 --texel 0.5 --json --mixers 27e7f85991db08f6," + p.id() +
                              " --data " + quoted((d / "data").string()) + " --out " + quoted((d / "out").string()));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--mixers value 1: no function with id 27e7f85991db08f6"), std::string::npos) << r.output;
  const auto wide = run_mixforge("bake --spp 1 --bounces 0 --texel 0.5 --json --mixers " + p.id() + " --data " +
                                 quoted((d / "data").string()) + " --out " + quoted((d / "out").string()));
  EXPECT_EQ(wide.exit_code, 2) << wide.output;
  EXPECT_NE(wide.output.find("--mixers value 1: the baker's mixers are 32-bit lanes; this program is 64-bit"),
            std::string::npos)
      << wide.output;
  EXPECT_FALSE(fs::exists(d / "out" / "report.json"));
}

// Found by exploratory testing: mixers given with a sampler that uses none were silently
// ignored (exit 0, "mixers": []); the daemon refuses that (422), so does the CLI.
TEST(BakeCli, MixersWithAnotherSamplerAreRefused) {
  for (const std::string mixers : {"--mixers 'x ^= x >> 16; x *= 0x7feb352d;'", "--bundle family.json", "--run r1"}) {
    const auto r = run_mixforge("bake cornell --spp 1 --bounces 0 --sampler sobol-owen --json --out /tmp/mixforge_never " +
                                mixers);
    EXPECT_EQ(r.exit_code, 2) << mixers << ": " << r.output;
    EXPECT_NE(r.output.find(mixers.substr(0, mixers.find(' '))), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("--sampler sobol-owen"), std::string::npos) << r.output;
  }
}

// Found by exploratory testing: --texel 0 and 1e-300 (0 as a float) baked with the default
// texel size, and 1e-30 printed a chart of -9223372036854775808 texels (a float-to-integer
// overflow).
TEST(BakeCli, TexelSizesThatAreNotPositiveFloatsAreRefused) {
  for (const char* texel : {"0", "-1", "1e-300", "1e-45", "nan", "inf", "1e39", "abc", "0.5x"}) {
    const auto r = run_mixforge(std::string("bake cornell --spp 1 --bounces 0 --out /tmp/mixforge_never --texel ") + texel);
    EXPECT_EQ(r.exit_code, 2) << texel << ": " << r.output;
    EXPECT_NE(r.output.find("--texel"), std::string::npos) << texel << ": " << r.output;
  }
  // Positive but far too small for the atlas: the size in texels, not an overflowed integer.
  const auto r = run_mixforge("bake cornell --spp 1 --bounces 0 --out /tmp/mixforge_never --texel 1e-30");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("choose a larger --texel"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("-9223372036854775808"), std::string::npos) << r.output;
}

// Found by exploratory testing: a bad --reference or --out exited 1, as for an internal
// error; bad input exits 2 and names the option.
TEST(BakeCli, BadReferenceAndOutExitTwo) {
  const mixforge::test::TempDir scratch("bake-cli");
  const fs::path d = scratch / "badref";
  fs::create_directories(d);
  std::ofstream(d / "image.png") << "\x89PNG\r\n\x1a\n not really";
  auto r = run_mixforge("bake cornell --spp 1 --bounces 0 --texel 0.5 --out " + quoted((d / "a").string()));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  {  // a truncated EXR
    std::ifstream in(d / "a" / "lightmap.exr", std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::ofstream(d / "truncated.exr", std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  }
  std::ofstream(d / "file") << "x";
  const std::string bake = "bake cornell --spp 1 --bounces 0 --texel 0.5 ";
  for (const std::string& args :
       {"--reference " + quoted((d / "nonexist.exr").string()), "--reference " + quoted((d / "image.png").string()),
        "--reference " + quoted((d / "truncated.exr").string())}) {
    r = run_mixforge(bake + "--out " + quoted((d / "b").string()) + " " + args);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.output;
    EXPECT_NE(r.output.find("--reference"), std::string::npos) << args << ": " << r.output;
  }
  // A reference of another size (another texel size).
  r = run_mixforge("bake cornell --spp 1 --bounces 0 --texel 0.7 --out " + quoted((d / "c").string()) +
                   " --reference " + quoted((d / "a" / "lightmap.exr").string()));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--reference"), std::string::npos) << r.output;
  for (const fs::path& out : {d / "file", d / "file" / "below", fs::path("/proc/mixforge_never")}) {
    r = run_mixforge(bake + "--out " + quoted(out.string()));
    EXPECT_EQ(r.exit_code, 2) << out << ": " << r.output;
    EXPECT_NE(r.output.find("--out"), std::string::npos) << out << ": " << r.output;
  }
  fs::remove_all(d);
}

// Two-sided surfaces (issue 40, part 3): tests/baker/data/curtain.obj's .mtl makes its curtain
// two-sided (a back chart); --two-sided makes every material so (the floor's back too). The
// report says how many hemisphere rays and triangles were hit from behind.
TEST(BakeCli, TwoSidedMaterialsGetBackChartsAndTheReportCountsBackHits) {
  const mixforge::test::TempDir scratch("bake-cli");
  const fs::path d = scratch.path();
  const std::string obj = quoted(std::string(MIXFORGE_SOURCE_DIR) + "/tests/baker/data/curtain.obj");
  for (const bool all : {false, true}) {
    SCOPED_TRACE(all ? "--two-sided" : "the .mtl's key");
    const auto r = run_mixforge("bake " + obj + " --backend embree --spp 4 --bounces 1 --texel 0.1 --json --out " +
                                quoted((d / (all ? "all" : "mtl")).string()) + (all ? " --two-sided" : ""));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const auto report = last_line_json(r.output);
    expect_valid(report);
    EXPECT_EQ(report["atlas"]["back_charts"], all ? 2 : 1);
    EXPECT_EQ(report["atlas"]["charts"], all ? 4 : 3);
    const auto& b = report["back_hits"];
    EXPECT_EQ(b["two_sided_triangles"], all ? 4 : 2);
    EXPECT_GT(b["rays"].get<std::uint64_t>(), 0u);  // the floor's rays that meet the curtain
    EXPECT_EQ(b["triangles"], 2);
    EXPECT_EQ(b["one_sided_rays"], 0);
  }
  // Without --json, a line says it.
  const auto text = run_mixforge("bake " + obj + " --backend embree --spp 2 --bounces 1 --texel 0.2 --out " +
                                 quoted((d / "text").string()));
  ASSERT_EQ(text.exit_code, 0) << text.output;
  EXPECT_NE(text.output.find("back hits: "), std::string::npos) << text.output;
  fs::remove_all(d);
}

// --obj (issue 40, peer check: bench/peer_cycles.sh gives Blender the baked scene): the
// triangles as baked with the lightmap's atlas coordinates as UVs, v up, and the lights as
// comments. tests/baker/data/thin_wall.map: one delay-2 light of 300 at (128 128 96), 96 units
// above the floor; with no bounce the floor below it holds irradiance / pi = 128 x 300 / 96^2
// (the Quake conversion, quake_scene.hpp), read at the UV of that floor point.
TEST(BakeCli, ObjHasTheBakedTrianglesWithTheLightmapsUvsAndTheLights) {
  const mixforge::test::TempDir scratch("bake-cli");
  const fs::path d = scratch / "obj";
  const std::string map = quoted(std::string(MIXFORGE_SOURCE_DIR) + "/tests/baker/data/thin_wall.map");
  auto r = run_mixforge("bake " + map + " --spp 4 --bounces 0 --texel 4 --backend embree --obj --json --out " +
                        quoted(d.string()));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto report = last_line_json(r.output);
  const std::size_t triangles = report["scene"]["triangles"].get<std::size_t>();
  const double texel = report["atlas"]["texel_size"].get<double>();
  const double w = report["atlas"]["width"].get<double>(), h = report["atlas"]["height"].get<double>();
  ASSERT_TRUE(fs::exists(d / "lightmap.mtl"));
  std::ifstream in(d / "lightmap.obj");
  std::vector<std::array<double, 3>> v;
  std::vector<std::array<double, 2>> vt;
  std::size_t faces = 0;
  std::vector<std::string> lights;
  for (std::string line; std::getline(in, line);) {
    std::istringstream ls(line);
    std::string key;
    ls >> key;
    if (key == "v") {
      std::array<double, 3> p{};
      ls >> p[0] >> p[1] >> p[2];
      v.push_back(p);
    } else if (key == "vt") {
      std::array<double, 2> p{};
      ls >> p[0] >> p[1];
      EXPECT_TRUE(p[0] >= 0 && p[0] <= 1 && p[1] >= 0 && p[1] <= 1) << line;
      vt.push_back(p);
    } else if (key == "f") {
      ++faces;
    } else if (line.rfind("# mixforge_light ", 0) == 0) {
      lights.push_back(line);
    }
  }
  ASSERT_EQ(faces, triangles);
  ASSERT_EQ(v.size(), 3 * triangles);
  ASSERT_EQ(vt.size(), 3 * triangles);
  ASSERT_EQ(lights.size(), 1u);
  {  // I = pi 128 L for a white delay-2 light (W/sr in lightmap units)
    std::istringstream ls(lights[0]);
    std::string hash, tag, kind, word;
    double x, y, z, dx, dy, dz, ir, ig, ib;
    ls >> hash >> tag >> kind >> word >> x >> y >> z >> word >> dx >> dy >> dz >> word >> ir >> ig >> ib;
    EXPECT_EQ(kind, "point");
    EXPECT_EQ(x, 128);
    EXPECT_EQ(z, 96);
    EXPECT_NEAR(ir, 3.14159265358979 * 128 * 300, 0.1);
  }
  // Each triangle's UV area is its world area over the texel's area (planar charts at scale).
  const auto area3 = [](const std::array<double, 3>& a, const std::array<double, 3>& b, const std::array<double, 3>& c) {
    const double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, t[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    const double x = u[1] * t[2] - u[2] * t[1], y = u[2] * t[0] - u[0] * t[2], z = u[0] * t[1] - u[1] * t[0];
    return 0.5 * std::sqrt(x * x + y * y + z * z);
  };
  std::size_t floor_under_light = 0;
  std::array<double, 2> light_uv{};
  for (std::size_t i = 0; i < triangles; ++i) {
    const auto &a = v[3 * i], &b = v[3 * i + 1], &c = v[3 * i + 2];
    const auto &ta = vt[3 * i], &tb = vt[3 * i + 1], &tc = vt[3 * i + 2];
    const double uv_area = 0.5 * std::fabs(((tb[0] - ta[0]) * w) * ((tc[1] - ta[1]) * h) -
                                           ((tc[0] - ta[0]) * w) * ((tb[1] - ta[1]) * h));
    EXPECT_NEAR(uv_area, area3(a, b, c) / (texel * texel), 1e-3 * uv_area + 1e-3) << "triangle " << i;
    // The floor's top (z = 0, facing up) at (128, 128): barycentrics in the xy plane.
    if (a[2] != 0 || b[2] != 0 || c[2] != 0) continue;
    const double det = (b[0] - a[0]) * (c[1] - a[1]) - (c[0] - a[0]) * (b[1] - a[1]);
    if (det <= 0) continue;  // the floor's bottom faces down
    const double l1 = ((128 - a[0]) * (c[1] - a[1]) - (c[0] - a[0]) * (128 - a[1])) / det;
    const double l2 = ((b[0] - a[0]) * (128 - a[1]) - (128 - a[0]) * (b[1] - a[1])) / det;
    if (l1 < 0 || l2 < 0 || l1 + l2 > 1) continue;
    ++floor_under_light;
    for (int k = 0; k < 2; ++k) light_uv[k] = ta[k] + l1 * (tb[k] - ta[k]) + l2 * (tc[k] - ta[k]);
  }
  ASSERT_EQ(floor_under_light, 1u);
  const mixforge::baker::Image lm = mixforge::baker::read_exr(d / "lightmap.exr");
  const auto x = static_cast<std::uint32_t>(light_uv[0] * w), y = static_cast<std::uint32_t>((1 - light_uv[1]) * h);
  ASSERT_LT(x, lm.width);
  ASSERT_LT(y, lm.height);
  // The texel's sample point is within 2.9 units of (128, 128): cos^3 of 1.7 degrees, 0.9987.
  EXPECT_NEAR(lm.pixels[std::size_t{y} * lm.width + x].x, 128.0 * 300 / (96.0 * 96), 0.01 * 4.17);

  // The OBJ reads back as a scene with as many triangles (its own charts, no lights).
  r = run_mixforge("bake " + quoted((d / "lightmap.obj").string()) + " --spp 1 --bounces 0 --texel 16 --json --out " +
                   quoted((d / "again").string()));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(last_line_json(r.output)["scene"]["triangles"].get<std::size_t>(), triangles);
  fs::remove_all(d);
}
