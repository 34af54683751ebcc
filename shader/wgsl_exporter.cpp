// WGSL (WebGPU): u32, vec4<u32>. No 64-bit integers exist in WGSL.
#include "shader/target_syntax.hpp"

namespace mixforge::shader {

const TargetSyntax& wgsl_syntax() {
  static const TargetSyntax s{
      .target = Target::wgsl,
      .u32 = "u32",
      .u64 = "",
      .u32x4 = "vec4<u32>",
      .why_no_u64 =
          "WGSL has no 64-bit integer type (the WebGPU spec defines only i32, u32, f32 and "
          "f16, and no extension adds one); a 64-bit program would need emulation with "
          "vec2<u32> carries and a 32x32->64 multiply, which mixforge does not generate",
      .u32_suffix = "u",
      .vector_constructor = "vec4<u32>",
      .lane_accessor = {".x", ".y", ".z", ".w"},
      .type_after_name = true,
      .local_keyword = "var",
      .function_keyword = "fn",
      .params_immutable = true,
  };
  return s;
}

}  // namespace mixforge::shader
