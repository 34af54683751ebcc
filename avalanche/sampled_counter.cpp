#include "avalanche/sampled_counter.hpp"

#include <algorithm>
#include <memory>
#include <stdexcept>

#include "avalanche/counting_kernels.hpp"
#include "avalanche/diff_counter.hpp"
#include "jit/kernel.hpp"

namespace mixforge {

AvalancheCounts sampled_counts(const jit::Kernel& k, std::uint64_t seed, std::uint64_t first,
                               std::uint64_t count) {
  using counting::Plane;
  const int n = k.width();
  const auto lanes = static_cast<std::size_t>(k.lanes());
  const int word_bits = n <= 32 ? 32 : 64;
  AvalancheCounts result = AvalancheCounts::zero(n, false);
  result.trials = count;
  if (count == 0) return result;
  if (count > (std::uint64_t{1} << 48))
    throw std::invalid_argument("sampled counts: at most 2^48 samples per call");

  // 32 vectors per block: two Harley-Seal groups per direction between reloads of the
  // accumulators; the differences (64 KiB at width 32) stay in L2. 16 and 64 measured slower.
  constexpr std::size_t block = 32;
  const counting::CountingKernels& kern = counting::best_counting_kernels();
  auto inputs = std::make_unique<Plane[]>(block);
  auto diffs = std::make_unique<Plane[]>(block * static_cast<std::size_t>(n));
  counting::DiffCounter counter(n);
  const std::uint64_t per_block = block * lanes;
  for (std::uint64_t done = 0; done < count;) {
    const std::uint64_t todo = std::min(count - done, per_block);
    const std::size_t vectors = (todo + lanes - 1) / lanes;
    kern.sample_inputs(seed, first + done, todo, k.program().mask(), word_bits, inputs.get());
    const std::size_t used = todo % lanes;  // lanes used in a partial last vector
    if (used) {
      // Padding lanes hash zeros; their differences are cleared below.
      char* last = reinterpret_cast<char*>(&inputs[vectors - 1]);
      std::fill(last + used * word_bits / 8, last + 64, 0);
    }
    k.diffs(inputs.get(), diffs.get(), vectors);
    if (used)
      for (int i = 0; i < n; ++i) {
        char* plane = reinterpret_cast<char*>(&diffs[(vectors - 1) * n + static_cast<std::size_t>(i)]);
        std::fill(plane + used * word_bits / 8, plane + 64, 0);
      }
    counter.add(diffs.get(), vectors);
    done += todo;
  }
  counter.add_to(result);
  return result;
}

}  // namespace mixforge
