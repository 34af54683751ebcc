#pragma once
// Sums avalanche differences in jit::Kernel::diffs layout (internal to the avalanche
// module): row v holds `width` 512-bit planes, plane i the differences f(x) ^ f(x ^ 2^i)
// of the row's inputs, as 32-bit words (width <= 32) or 64-bit ones. The counting is the
// bit-sliced SIMD kernels'; where the differences come from (a JIT kernel, the
// interpreter) is the caller's.
#include <cstddef>
#include <vector>

#include "avalanche/counting_kernels.hpp"
#include "avalanche/counts.hpp"

namespace mixforge::counting {

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

}  // namespace mixforge::counting
