#pragma once
// Avalanche counts from the reference interpreter: slow, simple, the ground truth the
// JIT back ends are tested against.
#include "avalanche/counts.hpp"
#include "mixer/program.hpp"

namespace mixforge::avalanche {

// All 2^n inputs, every input bit flipped (n <= 24 is practical).
AvalancheCounts reference_counts_exact(const mixer::Program& program);
// Inputs x in [first, first + count) only (trials = count; exact is set).
AvalancheCounts reference_counts_exact_range(const mixer::Program& program, std::uint64_t first, std::uint64_t count);
// Samples first .. first+count-1 of the stream with this seed.
AvalancheCounts reference_counts_sampled(const mixer::Program& program, std::uint64_t seed, std::uint64_t first,
                                         std::uint64_t count);

}  // namespace mixforge::avalanche
