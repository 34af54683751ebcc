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
// - count_kernel_exact (widths <= 32): an index is an input x; first, end and per_warp
//   must be multiples of exact_granule(n, options), or end = 2^n. Over [0, 2^n) the counts
//   equal the CPU's exact counts (each pair {x, x ^ 2^i} counted from both sides, trials 2^n).
// - count_kernel_sampled (any width): index k is the input sample_input(seed, k) & mask
//   (avalanche/count/sample_stream.hpp), so counts equal the CPU's sampled counts of the same
//   samples bit for bit; trials = end - first.
#include <cstdint>
#include <span>
#include <string>

#include "jit/ptx.hpp"
#include "mixer/program.hpp"

namespace mixforge::jit {

inline constexpr const char* count_kernel_exact = "mixforge_exact";
inline constexpr const char* count_kernel_sampled = "mixforge_sampled";
inline constexpr unsigned max_per_warp = 1u << 30;

// How the kernels count; every way gives the same counts.
// - tile = 0, direct: each (index, input bit) difference word goes through a warp
//   transpose (five shuffles) and a popcount.
// - tile = T (8, 16 or 32), tiled: each lane takes T indices spaced 32 apart, and the T
//   difference words of an input bit go into bit-sliced carry-save counters (two logic
//   ops per word), transposed once per (tile, input bit). The exact kernel also takes the
//   partners of input bits 5 .. 4 + log2 T from the tile instead of hashing them, and
//   counts widths with 2^n < 32 T directly.
// The default, 16: for exact lowbias32 on sm_90 ptxas gives it 72 registers (the direct
// kernel 71), no spills, and its PTX runs half the instructions per input (393 against
// 785 per 32 inputs, counting each block's instructions times how often it runs), 2.7x
// fewer shuffles and 3x fewer popcounts. Not yet timed on a GPU (bench_gpu times each).
struct CountKernelOptions {
  unsigned tile = 16;
};

// Which kernels a module holds. The evaluator asks for the one a call needs: a module costs
// a PTX compile when the driver loads it, and the two kernels cost about the same.
enum class CountKernels { exact, sampled, both };

// std::invalid_argument for a tile other than 0, 8, 16 or 32. Everything that takes the
// options checks them (the functions below too).
void check_kernel_options(const CountKernelOptions& options);

// Indices per tile of the exact kernel: 32 * tile where it tiles, else 32.
std::uint64_t exact_granule(int width, const CountKernelOptions& options);

// Indices per tile of the sampled kernel (32 * tile, or 32 direct). Any multiple of 32 is
// a valid per_warp, but a warp's last tile runs whole, masked: plans in multiples of this
// waste no lanes.
std::uint64_t sampled_granule(const CountKernelOptions& options);

// Validates every program (ProgramError); std::invalid_argument for an empty batch, mixed
// widths, or the exact kernel above 32 bits (`both` then holds the sampled one only);
// JitError when LLVM cannot target the GPU. options.kernel_name is unused.
std::string emit_count_ptx(std::span<const mixer::Program> programs, const PtxOptions& options = {},
                           const CountKernelOptions& kernels = {}, CountKernels which = CountKernels::both);

}  // namespace mixforge::jit
