// The default family: the compiled-in code is what `mixforge export` writes for the shipped
// bundle's programs, agrees with the reference interpreter, and carries exact scores; the
// JIT mixers agree with the interpreter too.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "baker/sampling/default_mixer4.hpp"
#include "baker/sampling/jit_mixer4.hpp"
#include "jit/engine.hpp"
#include "mixer/interpreter.hpp"
#include "mixer/json_form.hpp"
#include "mixer/text_form.hpp"
#include "shader/export.hpp"

using namespace mixforge;
using namespace mixforge::baker;

namespace {

std::vector<Lanes> inputs() {
  std::vector<Lanes> in;
  std::uint64_t s = 1;
  for (int i = 0; i < 4096; ++i) {
    Lanes l;
    for (auto& v : l) {
      s = s * 6364136223846793005ull + 1442695040888963407ull;
      v = static_cast<std::uint32_t>(s >> 32);
    }
    if (i < 16) l = {std::uint32_t(i), std::uint32_t(i), std::uint32_t(i), std::uint32_t(i)};
    in.push_back(l);
  }
  return in;
}

void expect_matches_interpreter(const Mixer4& m) {
  const auto in = inputs();
  std::vector<Lanes> out(in.size());
  m.apply(in.data(), out.data(), in.size());
  for (std::size_t k = 0; k < in.size(); ++k)
    for (int l = 0; l < 4; ++l)
      ASSERT_EQ(out[k][l], mixer::apply(m.lanes()[l].program, in[k][l])) << "input " << k << " lane " << l;
}

}  // namespace

TEST(DefaultMixers, CompiledCodeIsTheExportOfTheShippedBundle) {
  const auto j = nlohmann::json::parse(default_family_bundle());
  ASSERT_EQ(j["format"], "mixforge-shader-bundle");
  shader::ExportRequest req;
  req.target = shader::Target::cpp;
  req.vec4 = true;
  req.name = "default_family";
  for (const auto& p : j["programs"]) {
    shader::ExportProgram ep{mixer::program_from_json(p["program"]), std::nullopt};
    if (p["score"].is_object())
      ep.score = shader::ProgramScore{p["score"]["chi2"].get<double>(), p["score"]["bias"].get<double>(),
                                      p["score"]["exact"].get<bool>(), p["score"].value("samples", std::uint64_t{0})};
    req.programs.push_back(ep);
  }
  std::ifstream f(std::string(MIXFORGE_SOURCE_DIR) + "/baker/sampling/default_family.hpp");
  std::stringstream text;
  text << f.rdbuf();
  EXPECT_EQ(text.str(), shader::export_code(req));
  EXPECT_EQ(j["code"]["cpp"], shader::export_code(req));
}

TEST(DefaultMixers, AgreeWithTheInterpreterAndCarryExactScores) {
  const auto m = default_mixer4();
  EXPECT_EQ(m->origin(), "compiled-in");
  ASSERT_EQ(m->lanes().size(), 4u);
  for (const MixerInfo& l : m->lanes()) {
    EXPECT_EQ(l.program.width(), 32);
    EXPECT_TRUE(l.exact) << l.program.id();
    EXPECT_GT(l.chi2, 0);
    EXPECT_EQ(l.program.size(), m->lanes()[0].program.size());
    for (std::size_t s = 0; s < l.program.size(); ++s)
      EXPECT_EQ(l.program.steps()[s].kind, m->lanes()[0].program.steps()[s].kind) << "same-kind family";
  }
  expect_matches_interpreter(*m);
}

TEST(JitMixers, AgreeWithTheInterpreterAndRepeatTheLastLane) {
  std::vector<MixerInfo> lanes{{mixer::parse_program("x ^= x >> 15; x *= 0x2c1b3c6d; x ^= x >> 12;", {32}), -1, false},
                               {mixer::parse_program("x += x << 3; x ^= x << 7; x ^= 0x1234;", {32}), -1, false}};
  const auto m = make_jit_mixer4(lanes, std::make_shared<jit::Engine>());
  EXPECT_EQ(m->origin(), "jit");
  EXPECT_EQ(m->lanes()[3].program, lanes[1].program);
  expect_matches_interpreter(*m);
  lanes[0].program = mixer::parse_program("x *= 3;", {16});
  EXPECT_THROW(make_jit_mixer4(lanes, std::make_shared<jit::Engine>()), std::invalid_argument);
}
