#pragma once
// A target language as data: type names, literal spelling, declarations and signatures.
// One table per target lives in shader/<target>_exporter.cpp; render() is shared.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "shader/code_model.hpp"
#include "shader/export.hpp"

namespace mixforge::shader {

struct TargetSyntax {
  Target target{};
  std::string_view u32{}, u64{}, u32x4{};  // empty u64 / u32x4: the target cannot express it
  std::string_view why_no_u64{};      // said in the error when u64 is empty
  std::string_view u32_suffix{}, u64_suffix{};
  // Vectors: constructor name (uvec4(...)); empty: scalarise and use lane accessors.
  std::string_view vector_constructor{};
  std::string_view lane_accessor[4]{};  // ".x" ... or "[0]" ...
  // Declarations: C style "uint h = e;" or WGSL style "var h: u32 = e;".
  bool type_after_name = false;
  std::string_view local_keyword{};      // "var" (WGSL)
  std::string_view function_keyword{};   // "fn" (WGSL): "fn name(x: u32) -> u32"
  std::string_view function_prefix{};    // "inline ", "__device__ __forceinline__ ", "constexpr "
  std::string_view function_suffix{};    // " noexcept"
  bool params_immutable = false;       // WGSL: a parameter that is assigned gets a copy
  // Lines placed before everything else when a type is used (extensions, includes).
  std::vector<std::string_view> prelude{};
  std::vector<std::string_view> prelude_u64{};
  std::vector<std::string_view> prelude_vector{};
  // Spelling of 64-bit constants above 32 bits through a helper (glslang's HLSL front end
  // cannot parse 64-bit literals): "" = plain literal with u64_suffix.
  bool u64_literal_helper = false;
};

const TargetSyntax& glsl_syntax();
const TargetSyntax& hlsl_syntax();
const TargetSyntax& wgsl_syntax();
const TargetSyntax& msl_syntax();
const TargetSyntax& cuda_syntax();
const TargetSyntax& cpp_syntax();
const TargetSyntax& syntax_for(Target t);

// The module as source text in the target's conventions. Throws ExportError when the
// module needs a type the target lacks.
std::string render(const Module& module, const TargetSyntax& syntax);

}  // namespace mixforge::shader
