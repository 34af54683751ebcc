#pragma once
// Vector packing (the write-up's Permute4): four programs with the same sequence of step
// kinds run as one 4-lane function; only per-lane constants, shift amounts and masks differ.
#include <array>
#include <string>

#include "mixer/program.hpp"
#include "shader/code_model.hpp"
#include "shader/export.hpp"

namespace mixforge::shader {

// uvec4 f(uvec4 v[, uint seed]) from four programs of width 1..32 with the same step
// kinds. Seeded: lanes narrower than 32 bits are xor-ed with the seed, then masked.
// inverse: the lanes are the inverses of a seeded function's, so the seed (masked to
// each lane) is xor-ed in after the last step instead, which undoes the forward function.
// Throws ExportError naming the first lane / step that breaks the rules.
Function lower_vec4(const std::array<mixer::Program, 4>& lanes, bool seeded, const std::string& name,
                    ConstantStyle style, bool inverse = false);

// True when the four programs can share one 4-lane function.
bool packable(const std::array<mixer::Program, 4>& lanes);

// The write-up's Permute4 (docs/background.md, "Vectorised export"): lanes x, y are 7-bit
// CMJ row / column permutations, z, w 32-bit jitter hashes; used seeded.
std::array<mixer::Program, 4> writeup_permute4();

// Lane i of the packed function, computed by the reference interpreter: what every
// exported 4-lane function must return.
std::array<std::uint32_t, 4> reference_vec4(const std::array<mixer::Program, 4>& lanes, std::array<std::uint32_t, 4> v,
                                            bool seeded, std::uint32_t seed);

}  // namespace mixforge::shader
