#include "avalanche/count/reference_counts.hpp"

#include "avalanche/count/sample_stream.hpp"
#include "mixer/interpreter.hpp"

namespace mixforge::avalanche {

static void add_input(const mixer::Program& p, std::uint64_t x, AvalancheCounts& c) {
  const int n = p.width();
  const std::uint64_t h = mixer::apply(p, x);
  for (int i = 0; i < n; ++i) {
    const std::uint64_t d = h ^ mixer::apply(p, x ^ (std::uint64_t{1} << i));
    for (int j = 0; j < n; ++j) c.flips[static_cast<std::size_t>(i) * n + j] += (d >> j) & 1;
  }
}

AvalancheCounts reference_counts_exact_range(const mixer::Program& p, std::uint64_t first, std::uint64_t count) {
  AvalancheCounts c = AvalancheCounts::zero(p.width(), true);
  for (std::uint64_t x = first; x < first + count; ++x) add_input(p, x, c);
  c.trials = count;
  return c;
}

AvalancheCounts reference_counts_exact(const mixer::Program& p) {
  return reference_counts_exact_range(p, 0, std::uint64_t{1} << p.width());
}

AvalancheCounts reference_counts_sampled(const mixer::Program& p, std::uint64_t seed, std::uint64_t first,
                                         std::uint64_t count) {
  AvalancheCounts c = AvalancheCounts::zero(p.width(), false);
  for (std::uint64_t k = first; k < first + count; ++k) add_input(p, sample_input(seed, k) & p.mask(), c);
  c.trials = count;
  return c;
}

}  // namespace mixforge::avalanche
