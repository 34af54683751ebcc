#include "avalanche/count/sampled_counter.hpp"

#include <stdexcept>

#include "avalanche/count/counting_kernels.hpp"
#include "avalanche/count/diff_counter.hpp"
#include "jit/kernel.hpp"

namespace mixforge::avalanche {

AvalancheCounts sampled_counts(const jit::Kernel& k, std::uint64_t seed, std::uint64_t first, std::uint64_t count) {
  using counting::Plane;
  if (count > (std::uint64_t{1} << 48)) throw std::invalid_argument("sampled counts: at most 2^48 samples per call");
  const int n = k.width();
  const int word_bits = n <= 32 ? 32 : 64;
  const std::uint64_t mask = k.program().mask();
  const counting::CountingKernels& kern = counting::best_counting_kernels();
  return counting::count_in_blocks(
      n, false, count,
      [&](std::uint64_t done, std::size_t todo, Plane* inputs) {
        kern.sample_inputs(seed, first + done, todo, mask, word_bits, inputs);
      },
      [&](const Plane* inputs, Plane* diffs, std::size_t vectors, std::size_t) {
        k.diffs(inputs, diffs, vectors);  // whole vectors: padding lanes hash zeros
      });
}

}  // namespace mixforge::avalanche
