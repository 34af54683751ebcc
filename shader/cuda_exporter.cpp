// CUDA: uint32_t / uint64_t device functions; uint4 has no operators, so vectors are
// written lane by lane (the model is scalarised by the renderer).
#include "shader/target_syntax.hpp"

namespace mixforge::shader {

const TargetSyntax& cuda_syntax() {
  static const TargetSyntax s{
      .target = Target::cuda,
      .u32 = "uint32_t",
      .u64 = "uint64_t",
      .u32x4 = "uint4",
      .u32_suffix = "u",
      .u64_suffix = "ull",
      .vector_constructor = "",
      .lane_accessor = {".x", ".y", ".z", ".w"},
      .function_prefix = "__device__ __forceinline__ ",
      .prelude = {"#include <cstdint>"},
  };
  return s;
}

}  // namespace mixforge::shader
