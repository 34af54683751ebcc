#pragma once
// Avalanche counts with the interpreter hashing and the SIMD counting kernels counting:
// scoring without a JIT (Evaluator without an engine, the runs' small-work evaluator,
// builds without LLVM). Equal to reference_counts_* integer for integer; the reference
// loops stay as the plain ground truth the fast paths are tested against.
#include <cstdint>

#include "avalanche/counts.hpp"
#include "mixer/program.hpp"

namespace mixforge::avalanche {

// Inputs x in [first, first + count) (x < 2^width); exact is set, trials = count.
AvalancheCounts interpreted_counts_exact_range(const mixer::Program& program, std::uint64_t first, std::uint64_t count);
// Samples first .. first+count-1 of the stream with this seed (avalanche/count/sample_stream.hpp).
AvalancheCounts interpreted_counts_sampled(const mixer::Program& program, std::uint64_t seed, std::uint64_t first,
                                           std::uint64_t count);

}  // namespace mixforge::avalanche
