// HLSL (Shader Model 6 / DXC, and glslang's HLSL front end): uint, uint4, uint64_t.
#include "shader/target_syntax.hpp"

namespace mixforge::shader {

const TargetSyntax& hlsl_syntax() {
  static const TargetSyntax s{
      .target = Target::hlsl,
      .u32 = "uint",
      .u64 = "uint64_t",
      .u32x4 = "uint4",
      .u32_suffix = "u",
      .u64_suffix = "ull",
      .vector_constructor = "uint4",
      .lane_accessor = {".x", ".y", ".z", ".w"},
      .prelude_u64 = {"// uint64_t needs Shader Model 6.0 or later."},
      // glslang rejects 64-bit literals in HLSL; a helper from two halves works in DXC too.
      .u64_literal_helper = true,
  };
  return s;
}

}  // namespace mixforge::shader
