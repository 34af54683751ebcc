#pragma once
// The reference interpreter: plain C++, the ground truth every back end is tested against.
#include <cstddef>
#include <cstdint>

#include "mixer/program.hpp"

namespace mixforge::mixer {

std::uint64_t apply_step(const Step& step, std::uint64_t x, int width);
// f(x) for x masked to the program's width.
std::uint64_t apply(const Program& program, std::uint64_t x);
// values[k] = apply(program, values[k]) for k < count: one step over all values at a time,
// so each step's kind is looked at once, not once per value (the interpreted counter
// hashes n + 1 values per input this way).
void apply_in_place(const Program& program, std::uint64_t* values, std::size_t count);

}  // namespace mixforge::mixer
