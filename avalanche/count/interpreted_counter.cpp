#include "avalanche/count/interpreted_counter.hpp"

#include <algorithm>
#include <vector>

#include "avalanche/count/counting_kernels.hpp"
#include "avalanche/count/diff_counter.hpp"
#include "mixer/interpreter.hpp"

namespace mixforge::avalanche {

namespace {
// Counts `count` inputs, which fill(done, todo, inputs) writes as Word values (a block at
// a time), hashed by the interpreter into the JIT kernels' diffs layout.
template <class Word, class Fill>
AvalancheCounts count_inputs(const mixer::Program& p, bool exact, std::uint64_t count, Fill fill) {
  using counting::Plane;
  const auto n = static_cast<std::size_t>(p.width());
  const std::size_t lanes = 64 / sizeof(Word);
  // Per input its value and its n neighbours x ^ 2^i, hashed together (apply_in_place);
  // sized for the inputs of one call when that is less than a block.
  const std::size_t stride = n + 1;
  std::vector<std::uint64_t> values(
      static_cast<std::size_t>(std::min<std::uint64_t>(count, counting::block_vectors * lanes)) * stride);
  return counting::count_in_blocks(
      p.width(), exact, count,
      [&](std::uint64_t done, std::size_t todo, Plane* inputs) { fill(done, todo, reinterpret_cast<Word*>(inputs)); },
      [&](const Plane* inputs, Plane* diffs, std::size_t, std::size_t todo) {
        const Word* in = reinterpret_cast<const Word*>(inputs);
        for (std::size_t k = 0; k < todo; ++k) {
          std::uint64_t* v = &values[k * stride];
          v[0] = in[k];
          for (std::size_t i = 0; i < n; ++i) v[1 + i] = in[k] ^ (std::uint64_t{1} << i);
        }
        mixer::apply_in_place(p, values.data(), todo * stride);
        // Every lane below todo is written; count_in_blocks clears the padding lanes.
        Word* out = reinterpret_cast<Word*>(diffs);
        for (std::size_t k = 0; k < todo; ++k) {
          const std::uint64_t* v = &values[k * stride];
          Word* row = out + (k / lanes) * n * lanes + k % lanes;
          for (std::size_t i = 0; i < n; ++i) row[i * lanes] = static_cast<Word>(v[0] ^ v[1 + i]);
        }
      });
}

template <class Word>
AvalancheCounts exact_range(const mixer::Program& p, std::uint64_t first, std::uint64_t count) {
  return count_inputs<Word>(p, true, count, [first](std::uint64_t done, std::size_t todo, Word* in) {
    for (std::size_t k = 0; k < todo; ++k) in[k] = static_cast<Word>(first + done + k);
  });
}

template <class Word>
AvalancheCounts sampled(const mixer::Program& p, std::uint64_t seed, std::uint64_t first, std::uint64_t count) {
  const counting::CountingKernels& kernels = counting::best_counting_kernels();
  return count_inputs<Word>(p, false, count, [&](std::uint64_t done, std::size_t todo, Word* in) {
    kernels.sample_inputs(seed, first + done, todo, p.mask(), static_cast<int>(8 * sizeof(Word)), in);
  });
}
}  // namespace

AvalancheCounts interpreted_counts_exact_range(const mixer::Program& program, std::uint64_t first,
                                               std::uint64_t count) {
  return program.width() <= 32 ? exact_range<std::uint32_t>(program, first, count)
                               : exact_range<std::uint64_t>(program, first, count);
}

AvalancheCounts interpreted_counts_sampled(const mixer::Program& program, std::uint64_t seed, std::uint64_t first,
                                           std::uint64_t count) {
  return program.width() <= 32 ? sampled<std::uint32_t>(program, seed, first, count)
                               : sampled<std::uint64_t>(program, seed, first, count);
}

}  // namespace mixforge::avalanche
