#pragma once
// A mixing function applied to many inputs at once: what the quality measures sample
// through. Evaluator::batch_function gives the JIT-compiled program (or the interpreter);
// tests pass any callable, e.g. an ideal random function.
#include <cstddef>
#include <cstdint>
#include <functional>

#include "mixer/program.hpp"

namespace mixforge::avalanche {

// out[k] = f(in[k]) for k < n; inputs are below 2^width of the function.
using BatchFunction = std::function<void(const std::uint64_t* in, std::uint64_t* out, std::size_t n)>;

// The reference interpreter as a BatchFunction (slow; the ground truth).
BatchFunction interpreted_function(const mixer::Program& program);

}  // namespace mixforge::avalanche
