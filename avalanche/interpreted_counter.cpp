#include "avalanche/interpreted_counter.hpp"

#include <algorithm>
#include <memory>
#include <vector>

#include "avalanche/counting_kernels.hpp"
#include "avalanche/diff_counter.hpp"
#include "mixer/interpreter.hpp"

namespace mixforge {

namespace {
// Blocks of 32 vectors, as the JIT path takes them (avalanche/sampled_counter.cpp).
constexpr std::size_t block = 32;

// Counts `count` inputs, which fill(done, todo, inputs) writes as Word values (a block at
// a time), hashed by the interpreter into the JIT kernels' diffs layout.
template <class Word, class Fill>
AvalancheCounts count_inputs(const Program& p, bool exact, std::uint64_t count, Fill fill) {
  using counting::Plane;
  const int n = p.width();
  AvalancheCounts result = AvalancheCounts::zero(n, exact);
  result.trials = count;
  if (count == 0) return result;
  counting::DiffCounter counter(n);
  const auto lanes = static_cast<std::size_t>(counter.lanes());
  auto inputs = std::make_unique<Plane[]>(block);
  auto diffs = std::make_unique<Plane[]>(block * static_cast<std::size_t>(n));
  // Per input its value and its n neighbours x ^ 2^i, hashed together (apply_in_place).
  const std::size_t stride = static_cast<std::size_t>(n) + 1;
  std::vector<std::uint64_t> values(block * lanes * stride);
  Word* in = reinterpret_cast<Word*>(inputs.get());
  Word* out = reinterpret_cast<Word*>(diffs.get());
  for (std::uint64_t done = 0; done < count;) {
    const std::size_t todo = static_cast<std::size_t>(std::min<std::uint64_t>(count - done, block * lanes));
    const std::size_t vectors = (todo + lanes - 1) / lanes;
    fill(done, todo, in);
    for (std::size_t k = 0; k < todo; ++k) {
      std::uint64_t* v = &values[k * stride];
      v[0] = in[k];
      for (int i = 0; i < n; ++i) v[1 + i] = in[k] ^ (std::uint64_t{1} << i);
    }
    apply_in_place(p, values.data(), todo * stride);
    // Lanes past todo in the last vector keep zero differences.
    std::fill(out, out + vectors * static_cast<std::size_t>(n) * lanes, Word{0});
    for (std::size_t k = 0; k < todo; ++k) {
      const std::uint64_t* v = &values[k * stride];
      Word* row = out + (k / lanes) * static_cast<std::size_t>(n) * lanes + k % lanes;
      for (int i = 0; i < n; ++i) row[static_cast<std::size_t>(i) * lanes] = static_cast<Word>(v[0] ^ v[1 + i]);
    }
    counter.add(diffs.get(), vectors);
    done += todo;
  }
  counter.add_to(result);
  return result;
}

template <class Word>
AvalancheCounts exact_range(const Program& p, std::uint64_t first, std::uint64_t count) {
  return count_inputs<Word>(p, true, count, [first](std::uint64_t done, std::size_t todo, Word* in) {
    for (std::size_t k = 0; k < todo; ++k) in[k] = static_cast<Word>(first + done + k);
  });
}

template <class Word>
AvalancheCounts sampled(const Program& p, std::uint64_t seed, std::uint64_t first, std::uint64_t count) {
  const counting::CountingKernels& kernels = counting::best_counting_kernels();
  return count_inputs<Word>(p, false, count, [&](std::uint64_t done, std::size_t todo, Word* in) {
    kernels.sample_inputs(seed, first + done, todo, p.mask(), static_cast<int>(8 * sizeof(Word)), in);
  });
}
}  // namespace

AvalancheCounts interpreted_counts_exact_range(const Program& program, std::uint64_t first,
                                               std::uint64_t count) {
  return program.width() <= 32 ? exact_range<std::uint32_t>(program, first, count)
                               : exact_range<std::uint64_t>(program, first, count);
}

AvalancheCounts interpreted_counts_sampled(const Program& program, std::uint64_t seed,
                                           std::uint64_t first, std::uint64_t count) {
  return program.width() <= 32 ? sampled<std::uint32_t>(program, seed, first, count)
                               : sampled<std::uint64_t>(program, seed, first, count);
}

}  // namespace mixforge
