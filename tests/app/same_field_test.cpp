// The CLI and the daemon apply one rule set (app/): the same bad request, given to
// `mixforge` as options and to `mixforge serve` as JSON, is refused naming the same field
// in each one's spelling (--samples / "/samples"), and where the rule is the use case's own
// (not the CLI parser's or the JSON Schema's) with the same message.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/cli/run_command.hpp"
#include "tests/server/daemon_process.hpp"

namespace mixforge::test {
namespace {

struct Case {
  std::string name;
  std::string cli;         // arguments after `mixforge`
  std::string path;        // the HTTP route
  std::string body;        // its JSON body
  std::string cli_field;   // how the CLI's message names the field
  std::string pointer;     // the problem's "field"
  bool same_message = true;  // the use case's rule on both sides (not CLI11's or the schema's)
  bool baker = false;
  int status = 422;  // a query parameter's refusal is 400 (GET routes)
};

std::vector<Case> cases() {
  const std::string E = "/api/v1/evaluate";
  const std::string B = "/api/v1/bakes";
  const std::string X = "/api/v1/export";
  const std::string R = "/api/v1/runs";
  const std::string data = " --data " + quoted((fresh_dir("same-field-data") / "d").string());
  const std::string lane = quoted("x ^= x >> 7;"), other_lane = quoted("x ^= x >> 3; x *= 0x9e3779b9;");
  std::vector<Case> c = {
      {"program text", "eval --width 16 " + quoted("x ^= x >> 8; x *= 0xa3d2;"), E,
       R"({"program": "x ^= x >> 8; x *= 0xa3d2;", "width": 16})", "PROGRAM", "/program"},
      {"JSON program step", "eval " + quoted(R"({"width": 16, "steps": [{"kind": "mul", "constant": "0xa3d2"}]})"), E,
       R"({"program": {"width": 16, "steps": [{"kind": "mul", "constant": "0xa3d2"}]}})", "PROGRAM steps[0]",
       "/program/steps/0"},
      {"width against the JSON form",
       "eval --width 16 " + quoted(R"({"width": 32, "steps": [{"kind": "xsr", "shift": 16}]})"), E,
       R"({"program": {"width": 32, "steps": [{"kind": "xsr", "shift": 16}]}, "width": 16})", "--width", "/width"},
      {"exact too wide", "eval --exact --width 40 " + quoted("x ^= x >> 7;"), E,
       R"({"program": "x ^= x >> 7;", "width": 40, "exact": true})", "--exact", "/exact"},
      {"no samples", "eval --samples 0 --width 40 " + quoted("x ^= x >> 7;"), E,
       R"({"program": "x ^= x >> 7;", "width": 40, "samples": 0})", "--samples", "/samples", false},
      // export (app/export.hpp)
      {"export to an unknown target", "export --target vulkan " + lane, X,
       R"({"target": "vulkan", "programs": [{"program": "x ^= x >> 7;"}]})", "--target", "/target", false},
      {"seeded without vec4", "export --target glsl --seeded " + lane, X,
       R"({"target": "glsl", "seeded": true, "programs": [{"program": "x ^= x >> 7;"}]})", "--seeded", "/seeded"},
      {"range of a 16-bit program", "export --target glsl --range --width 16 " + lane, X,
       R"({"target": "glsl", "range": "jitter", "programs": [{"program": "x ^= x >> 7;", "width": 16}]})", "--range",
       "/range"},
      {"vec4 lanes of different shapes", "export --target glsl --vec4 " + lane + " " + other_lane, X,
       R"({"target": "glsl", "vec4": true, "programs": [{"program": "x ^= x >> 7;"}, {"program": "x ^= x >> 3; x *= 0x9e3779b9;"}]})",
       "--vec4", "/programs/1"},
      {"a bad function name", "export --target glsl --name 1abc " + lane, X,
       R"({"target": "glsl", "name": "1abc", "programs": [{"program": "x ^= x >> 7;"}]})", "--name", "/name"},
      // quality (app/quality.hpp): a GET route, its options are query parameters
      {"quality of an unknown size", "quality --size huge 0123456789abcdef" + data,
       "/api/v1/functions/0123456789abcdef/quality?size=huge", "", "--size", "?size", false, false, 400},
      // run creation (app/run_creation.hpp)
      {"run wider than 64 bits", "evolve --width 65" + data, R, R"({"width": 65})", "--width", "/width", false},
      {"min_steps above max_steps", "evolve --min-steps 6 --max-steps 5" + data, R,
       R"({"min_steps": 6, "max_steps": 5})", "--min-steps", "/min_steps"},
      {"a pool of one", "evolve --pool 1" + data, R, R"({"pool_size": 1})", "--pool", "/pool_size", false},
      {"a budget of no seconds", "evolve --seconds 0" + data, R, R"({"budget": {"seconds": 0}})", "--seconds",
       "/budget/seconds", false},
      {"an unknown kind in the sequence", "evolve --kind-sequence xsr,foo" + data, R,
       R"({"kind_sequence": ["xsr", "foo"]})", "--kind-sequence", "/kind_sequence", false},
      {"objective samples below 64", "evolve --objective-samples 8" + data, R, R"({"objective": {"samples": 8}})",
       "--objective-samples", "/objective/samples", false},
      {"a seed program that is no program", "evolve --seed-program " + quoted("x ^= x >> 8; x *= ;") + data, R,
       R"({"seed_programs": ["x ^= x >> 8; x *= ;"]})", "--seed-program", "/seed_programs/0"},
      {"a seed program of another width",
       "evolve --width 16 --seed-program " + quoted("x ^= x >> 3; x &= 0xff;") + data, R,
       R"({"width": 16, "seed_programs": ["x ^= x >> 3; x &= 0xff;"]})", "--seed-program", "/seed_programs/0"},
  };
#ifdef MIXFORGE_WITH_BAKER
  const std::string out = " --out " + quoted((fresh_dir("same-field") / "bake").string());
  c.push_back({"texel below a float", "bake --spp 1 --bounces 0 --texel 1e-300" + out, B,
               R"({"spp": 1, "bounces": 0, "texel": 1e-300})", "--texel", "/texel", true, true});
  c.push_back({"spp above the model", "bake --spp 2000000" + out, B, R"({"spp": 2000000})", "--spp", "/spp", false, true});
  c.push_back({"bounces above the model", "bake --bounces 65" + out, B, R"({"bounces": 65})", "--bounces", "/bounces",
               false, true});
  c.push_back({"mixers with a sampler that takes none", "bake --sampler pcg --mixers " + quoted("x ^= x >> 16;") + out,
               B, R"({"sampler": "pcg", "mixers": {"programs": ["x ^= x >> 16;"]}})", "--mixers", "/mixers", false,
               true});
#endif
  return c;
}

TEST(SameField, TheCliAndTheDaemonNameTheSameFieldForTheSameBadRequest) {
  Daemon daemon;
  auto http = daemon.client();
  for (const Case& k : cases()) {
    SCOPED_TRACE(k.name);
    const CommandResult cli = run_mixforge(k.cli);
    EXPECT_EQ(cli.exit_code, 2) << cli.output;
    EXPECT_NE(cli.output.find(k.cli_field), std::string::npos) << cli.output;
    auto res = k.body.empty() ? http.Get(k.path) : http.Post(k.path, k.body, "application/json");
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, k.status) << res->body;
    const auto problem = nlohmann::json::parse(res->body);
    EXPECT_EQ(problem.value("field", std::string()).rfind(k.pointer, 0), 0u) << res->body;
    if (k.same_message) {
      EXPECT_NE(cli.output.find(problem.value("detail", std::string())), std::string::npos)
          << "CLI: " << cli.output << "\nHTTP: " << res->body;
    }
  }
}

}  // namespace
}  // namespace mixforge::test
