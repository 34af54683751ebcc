#pragma once
// The avalanche counting kernels of the GPU evaluator: PTX from the same step emitter as
// the CPU kernels (LLVM's NVPTX back end), for a batch of programs of one width.
//
// Launch contract (both kernels take u64* counts, u64 first, u64 end, u64 per_warp,
// u64 seed; blocks of whole warps; gridDim.y = programs in the batch):
// - Warp w (global thread index / 32) takes the indices [first + w * per_warp,
//   min(first + (w + 1) * per_warp, end)), 32 at a time; per_warp is a multiple of 32,
//   at most 2^30. Warps past the end return.
// - Program b = blockIdx.y adds its counts into counts[b * n * n + i * n + j] (atomic
//   adds; zero the array first), in the layout of AvalancheCounts::flips.
// - count_kernel_exact (widths <= 32): an index is an input x; first must be a multiple
//   of 32 and end a multiple of 32 or 2^n. Over [0, 2^n) the counts equal the CPU's exact
//   counts (each pair {x, x ^ 2^i} counted from both sides, trials 2^n).
// - count_kernel_sampled (any width): index k is the input sample_input(seed, k) & mask
//   (avalanche/sample_stream.hpp), so counts equal the CPU's sampled counts of the same
//   samples bit for bit; trials = end - first.
#include <span>
#include <string>

#include "jit/ptx.hpp"
#include "mixer/program.hpp"

namespace mixforge::jit {

inline constexpr const char* count_kernel_exact = "mixforge_exact";
inline constexpr const char* count_kernel_sampled = "mixforge_sampled";
inline constexpr unsigned max_per_warp = 1u << 30;

// Validates every program (ProgramError); std::invalid_argument for an empty batch or
// mixed widths; JitError when LLVM cannot target the GPU. options.kernel_name is unused.
std::string emit_count_ptx(std::span<const Program> programs, const PtxOptions& options = {});

}  // namespace mixforge::jit
