#pragma once
// Lowering a program into the code model (4-lane functions: vec4_packing.hpp).
#include <array>
#include <string>
#include <vector>

#include "mixer/program.hpp"
#include "shader/code_model.hpp"
#include "shader/export.hpp"

namespace mixforge::shader {

// uint f(uint x) (uint64 for widths above 32). Widths below the type's width mask the
// input and, after every step that can carry bits past the width (mul, add, sub, xsl,
// add/sub-shift, rotate), the result; xor-const and xsr cannot, so they stay unmasked.
Function lower_scalar(const mixer::Program& program, const std::string& name, ConstantStyle style);

// Building blocks shared with vec4_packing: an assignment, and the body for steps given
// per lane (lanes = 1 for scalar types), ending in "return var;".
Stmt assign(const std::string& var, Type t, Expr value);
void lower_steps(Function& f, const std::string& var, Type t, const std::array<int, 4>& widths,
                 const std::vector<std::array<mixer::Step, 4>>& steps, ConstantStyle style);

}  // namespace mixforge::shader
