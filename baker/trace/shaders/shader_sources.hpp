#pragma once
// The ray-tracing shaders, embedded at build time (baker/CMakeLists.txt):
// - SPIR-V from glslangValidator --target-env vulkan1.2: miss, closest hit, and the raygen
//   shader with the default family's mixers.glsl (exported by shader/ at build time);
// - the GLSL sources, for compiling the raygen shader at run time with a user's mixers.
#include <cstdint>
#include <span>
#include <string_view>

namespace mixforge::baker::shader_sources {

extern const std::span<const std::uint32_t> raygen_default_spv, miss_spv, closest_hit_spv;
extern const std::string_view raygen, ray_common, hemisphere, mixforge_cmj;
// The default family's mixers.glsl that raygen_default_spv was compiled with.
extern const std::string_view default_mixers;

}  // namespace mixforge::baker::shader_sources
