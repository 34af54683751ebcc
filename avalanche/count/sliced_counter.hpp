#pragma once
// Bit-sliced counters (internal to the avalanche module): 512 counters kept as bit
// planes, so adding a 512-bit difference vector costs a few bitwise operations
// (Harley-Seal carry-save adders) instead of 512 increments.
#include <cstdint>

namespace mixforge::avalanche::counting {

// No member initialiser: SlicedCounter leaves its levels unset until used (below);
// Plane{} and containers' value-initialisation still zero a plane.
struct alignas(64) Plane {
  std::uint64_t w[8];
};

inline constexpr int sliced_levels = 44;  // enough for 16 << 44 additions per position

// Position p (0..511) is bit p % 64 of word p / 64 of every plane. Its value is
//   sum_k 2^k low[k] + sum_k 16 * 2^k (level[k] + pending[k] if has_pending bit k).
inline constexpr int low_planes = 6;
struct SlicedCounter {
  // Only the low planes start zeroed: a level is zeroed when it comes into use (top grows;
  // the counting kernels' add_level), and a pending plane is read only while its bit of
  // has_pending is set. Sampled scoring makes one counter per input bit for each chunk of
  // a few hundred samples, so zeroing all 94 planes (6 KiB) each time was measurable.
  SlicedCounter() {}             // user-provided: value-initialisation must not zero the levels either
  Plane low[low_planes] = {};    // Harley-Seal accumulators: weights 1, 2, 4, 8, 16, 32
  Plane level[sliced_levels];    // weight 16 << k, for k < top
  Plane pending[sliced_levels];  // a second plane of weight 16 << k, waiting for a partner
  std::uint64_t has_pending = 0;
  int top = 0;  // levels in use: [0, top)
};

// Calls f(plane, log2 of its weight) for every plane of c that holds counts.
template <class F>
inline void for_each_plane(const SlicedCounter& c, F&& f) {
  for (int k = 0; k < low_planes; ++k) f(c.low[k], k);
  for (int k = 0; k < c.top; ++k) {
    f(c.level[k], k + 4);
    if (c.has_pending >> k & 1) f(c.pending[k], k + 4);
  }
}

// The 512 counter values, added into totals: the plain reference loop (tests, benchmarks
// and the check of the kernels' fold_bits).
void add_totals(const SlicedCounter& c, std::uint64_t totals[512]);

}  // namespace mixforge::avalanche::counting
