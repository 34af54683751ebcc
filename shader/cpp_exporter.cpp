// C++17 and later: constexpr functions on std::uint32_t / std::uint64_t; 4 lanes as
// std::array, written lane by lane.
#include "shader/target_syntax.hpp"

namespace mixforge::shader {

const TargetSyntax& cpp_syntax() {
  static const TargetSyntax s{
      .target = Target::cpp,
      .u32 = "std::uint32_t",
      .u64 = "std::uint64_t",
      .u32x4 = "std::array<std::uint32_t, 4>",
      .u32_suffix = "u",
      .u64_suffix = "ull",
      .vector_constructor = "",
      .lane_accessor = {"[0]", "[1]", "[2]", "[3]"},
      .function_prefix = "constexpr ",
      .function_suffix = " noexcept",
      .prelude = {"#include <cstdint>"},
      .prelude_vector = {"#include <array>"},
  };
  return s;
}

}  // namespace mixforge::shader
