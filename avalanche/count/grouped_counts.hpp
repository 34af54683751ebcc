#pragma once
// Sampled counts kept in groups of disjoint samples, so that the standard error of chi2 is
// measured from the data. The cells of the avalanche matrix are not independent: the n
// cells of a row share their input x, and for a function with structure their deviations
// move together, which the cell-by-cell formula (score() alone) misses: its error bars
// were 1.8x to 4.2x too small from fair to poor programs (bench/stderr_calibration.py).
//
// chi2 = 2 sum_c (A_c - 1/2)^2 is split into its linear part, 4 sum_c (A_c - 1/2) e_c,
// whose variance is taken from the spread of that sum over the groups (the covariances
// of all cells, as they are), and its quadratic part 2 sum_c (e_c^2 - s_c^2), whose
// variance 8 sum_c s_c^4 is the same for any function and cells near independence. The
// plug-in weights 4 (A_c - 1/2) carry the noise too; its share of the group spread,
// 16 sum_c s_c^4, is taken out (s_c^2 = A_c (1 - A_c) / N, e_c the sampling error).
#include <cstdint>
#include <vector>

#include "avalanche/stats/chi_square.hpp"
#include "avalanche/counts.hpp"

namespace mixforge::avalanche {

// Groups per sampled score: enough for the group spread to estimate a variance within
// about 25 % (2 / (G - 1) relative variance), few enough that a group keeps a useful
// number of samples at early reject's first 2^10.
inline constexpr int sample_groups = 32;

class GroupedCounts {
 public:
  explicit GroupedCounts(int width, int groups = sample_groups);
  int width() const { return width_; }
  int groups() const { return static_cast<int>(groups_.size()); }
  std::uint64_t trials() const { return pooled_.trials; }
  const AvalancheCounts& pooled() const { return pooled_; }
  const AvalancheCounts& group(int g) const { return groups_.at(static_cast<std::size_t>(g)); }
  // Adds counts of new samples to group g (of this width, not exact).
  void add(int g, const AvalancheCounts& counts);
  // How to split `count` new samples: chunks(count) contiguous chunks (at least
  // min_chunk samples each, at most groups()), chunk k for group group_of(k). Groups are
  // filled in turn across calls, so small extensions (early reject's first 2^10) cost a
  // few counting calls, not one per group: a call has a fixed cost (its counters) that
  // 32 calls of 32 samples each made larger than the counting itself.
  int chunks(std::uint64_t count) const;
  int group_of(int chunk) const { return (next_ + chunk) % groups(); }
  void advance(int chunks) { next_ = (next_ + chunks) % groups(); }
  // chi2 and chi2_corrected of the pooled counts (as score(pooled())); chi2_stderr from
  // the groups as described above, or score()'s formula while fewer than 8 groups hold
  // samples.
  Score score() const;

 private:
  int width_;
  std::vector<AvalancheCounts> groups_;
  AvalancheCounts pooled_;
  int next_ = 0;  // the group the next extension's first chunk goes to
};

// Samples per chunk at least (chunks of fewer samples cost more than they count).
inline constexpr std::uint64_t min_group_chunk = 256;

// Splits [first, first + count) into `chunks` contiguous chunks, in order: chunk k is
// [first + k * count / chunks, first + (k + 1) * count / chunks).
std::uint64_t group_chunk_start(std::uint64_t first, std::uint64_t count, int chunks, int k);

}  // namespace mixforge::avalanche
