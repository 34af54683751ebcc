#pragma once
// Sampled avalanche counts from a JIT kernel, on the calling thread. Equal to
// reference_counts_sampled for the same seed and range, integer for integer.
#include <cstdint>

#include "avalanche/counts.hpp"

namespace mixforge::jit {
class Kernel;
}

namespace mixforge::avalanche {

// Samples [first, first + count) of the stream with this seed (avalanche/count/sample_stream.hpp).
// The kernel needs the jit::parts_diffs entry point.
AvalancheCounts sampled_counts(const jit::Kernel& kernel, std::uint64_t seed, std::uint64_t first, std::uint64_t count);

}  // namespace mixforge::avalanche
