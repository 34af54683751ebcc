#include "baker/trace/mixers_glsl.hpp"

#include <stdexcept>

#include "shader/export.hpp"

namespace mixforge::baker {
namespace {

shader::ExportProgram export_program(const MixerInfo& m) {
  shader::ExportProgram p{m.program, std::nullopt};
  if (m.chi2 >= 0) p.score = shader::ProgramScore{m.chi2, 0, m.exact, 0};
  return p;
}

}  // namespace

std::string mixers_glsl(const std::vector<MixerInfo>& given) {
  // The lanes check of jit_mixer4.hpp's complete_lanes, repeated here so that the build-time
  // tool (shaders/export_mixers_glsl.cpp) needs no JIT: 1..4 programs of width 32, the last
  // repeated.
  if (given.empty() || given.size() > 4)
    throw std::invalid_argument("a mixer family has 1 to 4 programs, got " + std::to_string(given.size()));
  std::vector<MixerInfo> lanes = given;
  for (std::size_t i = 0; i < lanes.size(); ++i)
    if (lanes[i].program.width() != 32)
      throw std::invalid_argument("mixer " + std::to_string(i + 1) + " (" + lanes[i].program.id() + ") is " +
                                  std::to_string(lanes[i].program.width()) + " bits wide; the baker's lanes are 32-bit");
  while (lanes.size() < 4) lanes.push_back(lanes.back());
  shader::ExportRequest packed;
  packed.target = shader::Target::glsl;
  packed.vec4 = true;
  packed.name = mixers_glsl_function;
  for (const MixerInfo& m : lanes) packed.programs.push_back(export_program(m));
  try {
    return shader::export_code(packed);
  } catch (const shader::ExportError&) {
    // Not a same-kind family: export each lane on its own and apply them lane by lane.
  }
  std::string code;
  const char* lane_names[] = {"x", "y", "z", "w"};
  for (int l = 0; l < 4; ++l) {
    shader::ExportRequest one;
    one.target = shader::Target::glsl;
    one.name = std::string(mixers_glsl_function) + "_" + lane_names[l];
    one.programs.push_back(export_program(lanes[l]));
    code += shader::export_code(one) + "\n";
  }
  code += "uvec4 " + std::string(mixers_glsl_function) + "(uvec4 v) {\n  return uvec4(";
  for (int l = 0; l < 4; ++l)
    code += std::string(l ? ", " : "") + mixers_glsl_function + "_" + lane_names[l] + "(v." + lane_names[l] + ")";
  code += ");\n}\n";
  return code;
}

}  // namespace mixforge::baker
