// GLSL (Vulkan / OpenGL 4.x): uint, uvec4; 64-bit via GL_ARB_gpu_shader_int64.
#include "shader/target_syntax.hpp"

namespace mixforge::shader {

const TargetSyntax& glsl_syntax() {
  static const TargetSyntax s{
      .target = Target::glsl,
      .u32 = "uint",
      .u64 = "uint64_t",
      .u32x4 = "uvec4",
      .u32_suffix = "u",
      .u64_suffix = "ul",
      .vector_constructor = "uvec4",
      .lane_accessor = {".x", ".y", ".z", ".w"},
      // An #extension line may follow declarations in desktop GLSL; glslang accepts it.
      .prelude_u64 = {"#extension GL_ARB_gpu_shader_int64 : require"},
  };
  return s;
}

}  // namespace mixforge::shader
