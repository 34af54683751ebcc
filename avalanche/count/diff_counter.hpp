#pragma once
// Sums avalanche differences in jit::Kernel::diffs layout (internal to the avalanche
// module): row v holds `width` 512-bit planes, plane i the differences f(x) ^ f(x ^ 2^i)
// of the row's inputs, as 32-bit words (width <= 32) or 64-bit ones. The counting is the
// bit-sliced SIMD kernels'; where the differences come from (a JIT kernel, the
// interpreter) is the caller's.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "avalanche/count/counting_kernels.hpp"
#include "avalanche/counts.hpp"

namespace mixforge::avalanche::counting {

class DiffCounter {
 public:
  explicit DiffCounter(int width);
  // Words per plane: 16 at widths up to 32, else 8.
  int lanes() const { return word_bits_ == 32 ? 16 : 8; }
  // Adds `vectors` rows. Lanes not in use must hold zero differences.
  void add(const Plane* diffs, std::size_t vectors);
  // Adds the flips counted so far into counts (of this width).
  void add_to(AvalancheCounts& counts) const;

 private:
  int width_;
  int word_bits_;
  const CountingKernels& kernels_;
  std::vector<SlicedCounter> counters_;  // one per input bit
};

// Inputs per call to count_in_blocks' diffs: 32 vectors, two Harley-Seal groups per
// direction between reloads of the accumulators; the differences (64 KiB at width 32) stay
// in L2. 16 and 64 measured slower.
inline constexpr std::size_t block_vectors = 32;

// Counts `count` inputs a block at a time, for every path that hashes in this layout (the
// JIT's sampled kernels, the interpreter). fill(done, todo, inputs) writes inputs
// done .. done+todo-1 of the call as words of the DiffCounter's lanes;
// diffs(inputs, out, vectors, todo) writes their differences. Padding lanes of a partial
// last vector are zeroed in the inputs before diffs and in the differences after it, so
// diffs may hash whole vectors (the JIT) or only the todo inputs (the interpreter).
template <class Fill, class Diffs>
AvalancheCounts count_in_blocks(int width, bool exact, std::uint64_t count, Fill&& fill, Diffs&& diffs) {
  AvalancheCounts result = AvalancheCounts::zero(width, exact);
  result.trials = count;
  if (count == 0) return result;
  DiffCounter counter(width);
  const auto lanes = static_cast<std::size_t>(counter.lanes());
  const std::size_t word_bytes = sizeof(Plane) / lanes;
  const auto n = static_cast<std::size_t>(width);
  auto inputs = std::make_unique<Plane[]>(block_vectors);
  auto out = std::make_unique<Plane[]>(block_vectors * n);
  const auto clear_from = [&](Plane& plane, std::size_t used) {
    std::memset(reinterpret_cast<char*>(&plane) + used * word_bytes, 0, sizeof(Plane) - used * word_bytes);
  };
  for (std::uint64_t done = 0; done < count;) {
    const auto todo = static_cast<std::size_t>(std::min<std::uint64_t>(count - done, block_vectors * lanes));
    const std::size_t vectors = (todo + lanes - 1) / lanes;
    const std::size_t used = todo % lanes;  // lanes used in a partial last vector
    fill(done, todo, inputs.get());
    if (used) clear_from(inputs[vectors - 1], used);
    diffs(static_cast<const Plane*>(inputs.get()), out.get(), vectors, todo);
    if (used)
      for (std::size_t i = 0; i < n; ++i) clear_from(out[(vectors - 1) * n + i], used);
    counter.add(out.get(), vectors);
    done += todo;
  }
  counter.add_to(result);
  return result;
}

}  // namespace mixforge::avalanche::counting
