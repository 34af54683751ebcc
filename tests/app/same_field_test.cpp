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
};

std::vector<Case> cases() {
  const std::string E = "/api/v1/evaluate";
  const std::string B = "/api/v1/bakes";
  std::vector<Case> c = {
      {"program text", "eval --width 16 " + quoted("x ^= x >> 8; x *= 0xa3d2;"), E,
       R"({"program": "x ^= x >> 8; x *= 0xa3d2;", "width": 16})", "PROGRAM", "/program"},
      {"JSON program step", "eval " + quoted(R"({"width": 16, "steps": [{"kind": "mul", "constant": "0xa3d2"}]})"), E,
       R"({"program": {"width": 16, "steps": [{"kind": "mul", "constant": "0xa3d2"}]}})", "PROGRAM steps[0]",
       "/program/steps/0"},
      {"width against the JSON form", "eval --width 16 " + quoted(R"({"width": 32, "steps": [{"kind": "xsr", "shift": 16}]})"),
       E, R"({"program": {"width": 32, "steps": [{"kind": "xsr", "shift": 16}]}, "width": 16})", "--width", "/width"},
      {"exact too wide", "eval --exact --width 40 " + quoted("x ^= x >> 7;"), E,
       R"({"program": "x ^= x >> 7;", "width": 40, "exact": true})", "--exact", "/exact"},
      {"no samples", "eval --samples 0 --width 40 " + quoted("x ^= x >> 7;"), E,
       R"({"program": "x ^= x >> 7;", "width": 40, "samples": 0})", "--samples", "/samples", false},
  };
#ifdef MIXFORGE_WITH_BAKER
  const std::string out = " --out " + quoted((fresh_dir("same-field") / "bake").string());
  c.push_back({"texel below a float", "bake --spp 1 --bounces 0 --texel 1e-300" + out, B,
               R"({"spp": 1, "bounces": 0, "texel": 1e-300})", "--texel", "/texel", true, true});
  c.push_back({"spp above the model", "bake --spp 2000000" + out, B, R"({"spp": 2000000})", "--spp", "/spp", false, true});
  c.push_back({"bounces above the model", "bake --bounces 65" + out, B, R"({"bounces": 65})", "--bounces", "/bounces",
               false, true});
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
    auto res = http.Post(k.path, k.body, "application/json");
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 422) << res->body;
    const auto problem = nlohmann::json::parse(res->body);
    EXPECT_EQ(problem.value("field", std::string()).rfind(k.pointer, 0), 0u) << res->body;
    if (k.same_message) EXPECT_NE(cli.output.find(problem.value("detail", std::string())), std::string::npos)
        << "CLI: " << cli.output << "\nHTTP: " << res->body;
  }
}

}  // namespace
}  // namespace mixforge::test
