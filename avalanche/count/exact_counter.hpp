#pragma once
// Exact avalanche counts, all 2^n inputs (n <= 32), every input bit, on all TBB worker
// threads: each input hashed once, in tiles, by a JIT kernel or by the interpreter, and
// the pairs counted by the SIMD kernels. Equal to reference_counts_exact, integer for
// integer.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>

#include "avalanche/counts.hpp"
#include "mixer/program.hpp"

namespace mixforge::jit {
class Kernel;
}

namespace mixforge::avalanche {

// The kernel needs the jit::parts_tile entry point. Throws std::invalid_argument for
// widths > 32.
// cancel (may be null): checked between tiles; once it is true the count stops early and
// throws EvaluationCancelled (avalanche/counts.hpp).
// (Built with the JIT only: avalanche/count/jit_counts.cpp.)
AvalancheCounts exact_counts(const jit::Kernel& kernel, const std::atomic<bool>* cancel = nullptr);

// The same counts with the interpreter hashing each tile, 16 lanes at a time
// (CountingKernels::interpret_tile): nothing to compile, and every input hashed once (not
// once per neighbour as in interpreted_counts_exact_range). At small widths, where a
// kernel's compile costs more than the whole count, this is the sooner path.
AvalancheCounts interpreted_counts_exact(const mixer::Program& program, const std::atomic<bool>* cancel = nullptr);

// What both share: hash_tile(out, base, shift, vectors) must write
//   out[t] = f((base | (t << shift)) & mask) for t < 16 * vectors
// (jit::Kernel::hash_tile's contract); it is called from TBB worker threads.
using TileHasher = std::function<void(std::uint32_t* out, std::uint32_t base, unsigned shift, std::size_t vectors)>;
AvalancheCounts exact_counts_of_tiles(int width, const TileHasher& hash_tile,
                                      const std::atomic<bool>* cancel = nullptr);

}  // namespace mixforge::avalanche
