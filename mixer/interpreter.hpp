#pragma once
// The reference interpreter: plain C++, the ground truth every back end is tested against.
#include <cstdint>

#include "mixer/program.hpp"

namespace mixforge {

std::uint64_t apply_step(const Step& step, std::uint64_t x, int width);
// f(x) for x masked to the program's width.
std::uint64_t apply(const Program& program, std::uint64_t x);

}  // namespace mixforge
