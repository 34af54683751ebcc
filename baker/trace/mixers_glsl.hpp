#pragma once
// The GLSL of a 4-lane mixer family as the Vulkan shaders #include it: the code shader/'s
// exporter writes (`mixforge export --target glsl --vec4`), named `mixforge_mixers`.
#include <string>
#include <vector>

#include "baker/sampling/mixer4.hpp"

namespace mixforge::baker {

// The function's name in the shaders (baker/trace/shaders/mixforge_cmj.glsl calls it).
inline constexpr const char* mixers_glsl_function = "mixforge_mixers";

// `uvec4 mixforge_mixers(uvec4)` for the four lanes: one packed vec4 function when the
// lanes are a same-kind family, else the four scalar exports and a function that applies
// each to its lane. Throws shader::ExportError / std::invalid_argument naming the problem.
std::string mixers_glsl(const std::vector<MixerInfo>& lanes);

}  // namespace mixforge::baker
