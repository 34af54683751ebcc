#pragma once
// Exact scores by canonical id (Program::hash), so a program the search meets again (a
// neighbour local search tried before, a child equal to a member that left the pool)
// costs a lookup instead of 2^n hashes. Thread-safe. Bounded: two generations of at most
// capacity / 2 entries each; when the young one fills, the old one is dropped, so what
// was used recently stays (a cheap approximation of least-recently-used).
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <unordered_map>

namespace mixforge::evolver {

class ScoreCache {
 public:
  explicit ScoreCache(std::size_t capacity) : half_(capacity / 2) {}
  // The exact chi2 of the program with this hash, if known.
  std::optional<double> find(std::uint64_t hash);
  void put(std::uint64_t hash, double chi2);
  std::uint64_t hits() const;
  std::uint64_t misses() const;
  std::size_t size() const;

 private:
  mutable std::mutex mu_;
  std::size_t half_;
  std::unordered_map<std::uint64_t, double> young_, old_;
  std::uint64_t hits_ = 0, misses_ = 0;
};

}  // namespace mixforge::evolver
