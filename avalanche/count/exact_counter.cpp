#include "avalanche/count/exact_counter.hpp"

#include <tbb/blocked_range.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "avalanche/count/counting_kernels.hpp"

namespace mixforge::avalanche {
namespace {

using counting::Plane;
using counting::SlicedCounter;

// Below this width a tile would not fill the SIMD pair schemes; count directly.
constexpr int min_tile_bits = 7;
constexpr int max_tile_bits = 16;
// Sub-tiles of 2^13 words (32 KiB) are counted while they are still in L1. Measured on
// an AVX-512 Xeon (32 KiB L1): exact lowbias32 3% faster than 2^12 (probably half as many
// counting calls, each with a fixed cost: its accumulators in and out), 2^14 10% slower
// (the sub-tile no longer fits).
constexpr int max_sub_tile_bits = 13;

AvalancheCounts small_exact(int n, const TileHasher& hash_tile) {
  const std::uint64_t total = std::uint64_t{1} << n;
  std::uint32_t h[64];  // 2^n <= 64 values, whole vectors of 16
  hash_tile(h, 0, 0, (total + 15) / 16);
  AvalancheCounts c = AvalancheCounts::zero(n, true);
  c.trials = total;
  for (std::uint64_t x = 0; x < total; ++x)
    for (int i = 0; i < n; ++i) {
      const std::uint32_t d = h[x] ^ h[x ^ (std::uint64_t{1} << i)];
      for (int j = 0; j < n; ++j) c.flips[static_cast<std::size_t>(i) * n + j] += (d >> j) & 1;
    }
  return c;
}

// One pass hashes every input once, in tiles of 2^m inputs whose free bits are
// [shift, shift + m); it counts the directions whose partners lie in the same tile,
// each pair {x, x ^ 2^i} once (the count is doubled at the end: both members see it).
struct Pass {
  unsigned shift;
  std::vector<int> directions;  // global input bits
};

struct ThreadState {
  std::unique_ptr<Plane[]> tile;
  std::vector<SlicedCounter> counters;
};

}  // namespace

AvalancheCounts interpreted_counts_exact(const mixer::Program& program, const std::atomic<bool>* cancel) {
  const counting::CountingKernels& kern = counting::best_counting_kernels();
  const std::vector<mixer::Step>& steps = program.steps();
  const int n = program.width();
  return exact_counts_of_tiles(
      n,
      [&](std::uint32_t* out, std::uint32_t base, unsigned shift, std::size_t vectors) {
        kern.interpret_tile(steps.data(), static_cast<int>(steps.size()), n, out, base, shift, vectors);
      },
      cancel);
}

AvalancheCounts exact_counts_of_tiles(int n, const TileHasher& hash_tile, const std::atomic<bool>* cancel) {
  if (n > 32) throw std::invalid_argument("exact counts need width <= 32, the program has width " + std::to_string(n));
  if (n < min_tile_bits) return small_exact(n, hash_tile);
  const int m = std::min(n, max_tile_bits);
  std::vector<Pass> passes;
  passes.push_back({0, {}});
  for (int i = 0; i < m; ++i) passes[0].directions.push_back(i);
  if (n > m) {
    // The second pass takes the top m bits; directions below m are done already.
    passes.push_back({static_cast<unsigned>(n - m), {}});
    for (int i = m; i < n; ++i) passes[1].directions.push_back(i);
  }
  const counting::CountingKernels& kern = counting::best_counting_kernels();
  const std::size_t tile_vectors = std::size_t{1} << (m - 4);
  const int sub = std::min(m, max_sub_tile_bits);
  const std::size_t sub_vectors = std::size_t{1} << (sub - 4);
  const std::uint32_t subs = std::uint32_t{1} << (m - sub);
  const std::uint64_t tiles = std::uint64_t{1} << (n - m);

  AvalancheCounts result = AvalancheCounts::zero(n, true);
  result.trials = std::uint64_t{1} << n;
  for (const Pass& pass : passes) {
    const int nd = static_cast<int>(pass.directions.size());
    std::vector<int> local(pass.directions);  // ascending: inside a sub-tile first
    for (int& r : local) r -= static_cast<int>(pass.shift);
    const int near = static_cast<int>(std::count_if(local.begin(), local.end(), [&](int r) { return r < sub; }));
    tbb::enumerable_thread_specific<ThreadState> states([&] {
      ThreadState s;
      s.tile = std::make_unique<Plane[]>(tile_vectors);
      s.counters.resize(static_cast<std::size_t>(nd));
      return s;
    });
    tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, tiles, 1), [&](const tbb::blocked_range<std::uint64_t>& r) {
      ThreadState& s = states.local();
      auto* tile = reinterpret_cast<std::uint32_t*>(s.tile.get());
      for (std::uint64_t t = r.begin(); t != r.end(); ++t) {
        if (cancel && cancel->load(std::memory_order_relaxed)) return;
        // The tile's fixed bits: above the free range in pass 0, below it after.
        const auto base = static_cast<std::uint32_t>(pass.shift == 0 ? t << m : t);
        for (std::uint32_t part = 0; part < subs; ++part) {
          std::uint32_t* at = tile + (std::size_t{part} << sub);
          hash_tile(at, base | part << (pass.shift + sub), pass.shift, sub_vectors);
          kern.count_tile(at, sub, local.data(), near, s.counters.data());
        }
        if (near < nd) kern.count_tile(tile, m, local.data() + near, nd - near, s.counters.data() + near);
      }
    });
    if (cancel && cancel->load()) throw EvaluationCancelled();
    for (const ThreadState& s : states) {
      for (int d = 0; d < nd; ++d) {
        std::uint64_t bits[32] = {};
        kern.fold_bits(s.counters[static_cast<std::size_t>(d)], 32, bits);
        std::uint64_t* row = &result.flips[static_cast<std::size_t>(pass.directions[d]) * n];
        for (int j = 0; j < n; ++j) row[j] += 2 * bits[j];  // output bits >= n never flip
      }
    }
  }
  return result;
}

}  // namespace mixforge::avalanche
