// Metal Shading Language: uint, uint4, ulong (64-bit).
#include "shader/target_syntax.hpp"

namespace mixforge::shader {

const TargetSyntax& msl_syntax() {
  static const TargetSyntax s{
      .target = Target::msl,
      .u32 = "uint",
      .u64 = "ulong",
      .u32x4 = "uint4",
      .u32_suffix = "u",
      .u64_suffix = "ul",
      .vector_constructor = "uint4",
      .lane_accessor = {".x", ".y", ".z", ".w"},
      .function_prefix = "inline ",
  };
  return s;
}

}  // namespace mixforge::shader
