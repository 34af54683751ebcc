#include "avalanche/diff_counter.hpp"

namespace mixforge::avalanche::counting {

DiffCounter::DiffCounter(int width)
    : width_(width),
      word_bits_(width <= 32 ? 32 : 64),
      kernels_(best_counting_kernels()),
      counters_(static_cast<std::size_t>(width)) {}

void DiffCounter::add(const Plane* diffs, std::size_t vectors) {
  kernels_.count_diffs(diffs, width_, vectors, counters_.data());
}

void DiffCounter::add_to(AvalancheCounts& counts) const {
  for (int i = 0; i < width_; ++i) {
    std::uint64_t totals[512] = {};
    add_totals(counters_[static_cast<std::size_t>(i)], totals);
    std::uint64_t* row = &counts.flips[static_cast<std::size_t>(i) * width_];
    for (int p = 0; p < 512; ++p)
      if (p % word_bits_ < width_) row[p % word_bits_] += totals[p];
  }
}

}  // namespace mixforge::avalanche::counting
