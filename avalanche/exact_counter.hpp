#pragma once
// Exact avalanche counts from a JIT kernel: all 2^n inputs (n <= 32), every input bit,
// on all TBB worker threads. Equal to reference_counts_exact, integer for integer.
#include <atomic>

#include "avalanche/counts.hpp"

namespace mixforge {
namespace jit { class Kernel; }

// The kernel needs the jit::parts_tile entry point. Throws std::invalid_argument for
// widths > 32.
// cancel (may be null): checked between tiles; once it is true the count stops early and
// throws EvaluationCancelled (avalanche/counts.hpp).
AvalancheCounts exact_counts(const jit::Kernel& kernel, const std::atomic<bool>* cancel = nullptr);

}  // namespace mixforge
