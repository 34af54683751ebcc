#pragma once
// SIMD kernels behind exact and sampled avalanche counting (internal to the avalanche
// module). The same source is compiled for AVX-512, AVX2 and baseline x86-64; the best
// one for the running CPU is picked at run time.
#include <cstddef>
#include <cstdint>

#include "avalanche/count/sliced_counter.hpp"
#include "mixer/step.hpp"

namespace mixforge::avalanche::counting {

struct CountingKernels {
  const char* name;
  // A tile of 2^tile_bits hashes (tile_bits 5..16, 16 per 512-bit vector): for each
  // local direction r = local_dirs[d], adds tile[t] ^ tile[t ^ 2^r] to counters[d]
  // once per pair {t, t ^ 2^r}.
  void (*count_tile)(const std::uint32_t* tile, int tile_bits, const int* local_dirs, int directions,
                     SlicedCounter* counters);
  // Adds `vectors` rows of Kernel::diffs output (row v holds `width` 512-bit planes,
  // plane i for input bit i) into counters[i].
  void (*count_diffs)(const void* diffs, int width, std::size_t vectors, SlicedCounter* counters);
  // Adds c's 512 counters into out by output bit: position p is bit p % word_bits of a
  // word (word_bits 32: 16 words, 64: 8), and out[j] += the sum of positions with
  // p % word_bits == j, for j < word_bits. The same sums as add_totals, folded.
  void (*fold_bits)(const SlicedCounter& c, int word_bits, std::uint64_t* out);
  // out[k] = sample_input(seed, first + k) & mask for k < count, as uint32_t
  // (word_bits 32) or uint64_t (word_bits 64).
  void (*sample_inputs)(std::uint64_t seed, std::uint64_t first, std::size_t count, std::uint64_t mask, int word_bits,
                        void* out);
  // The interpreter's twin of jit::Kernel::hash_tile (width <= 32, steps valid for it):
  // out[t] = f((base | (t << shift)) & mask) for t < 16 * vectors, f the `count` steps.
  void (*interpret_tile)(const mixer::Step* steps, int count, int width, std::uint32_t* out, std::uint32_t base,
                         unsigned shift, std::size_t vectors);
};

const CountingKernels& generic_counting_kernels();
const CountingKernels* avx2_counting_kernels();    // null when not built in or not this CPU
const CountingKernels* avx512_counting_kernels();  // null when not built in or not this CPU
// The fastest kernels this CPU runs.
const CountingKernels& best_counting_kernels();

}  // namespace mixforge::avalanche::counting
