#pragma once
// The inverse of a mixing program, as a program of the same width.
#include "mixer/program.hpp"

namespace mixforge::mixer {

// inverse(f)(f(x)) == x for every x. xorshifts invert to chains of xorshifts,
// multiplies (and add/sub-shifts, which are multiplies by 1 +- 2^k) to multiplies by
// the modular inverse, rotations to the opposite rotation. May have more steps than f.
Program inverse(const Program& program);

// The inverse of an odd number mod 2^64 (Newton's iteration).
std::uint64_t inverse_mod_2_64(std::uint64_t odd);

}  // namespace mixforge::mixer
