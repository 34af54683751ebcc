#include "avalanche/count/diff_counter.hpp"

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
    std::uint64_t bits[64] = {};
    kernels_.fold_bits(counters_[static_cast<std::size_t>(i)], word_bits_, bits);
    std::uint64_t* row = &counts.flips[static_cast<std::size_t>(i) * width_];
    for (int j = 0; j < width_; ++j) row[j] += bits[j];  // output bits >= width never flip
  }
}

}  // namespace mixforge::avalanche::counting
