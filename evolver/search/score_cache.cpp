#include "evolver/search/score_cache.hpp"

namespace mixforge::evolver {

std::optional<double> ScoreCache::find(std::uint64_t hash) {
  std::lock_guard lk(mu_);
  if (half_ == 0) return std::nullopt;
  if (auto it = young_.find(hash); it != young_.end()) {
    ++hits_;
    return it->second;
  }
  if (auto it = old_.find(hash); it != old_.end()) {
    ++hits_;
    const double chi2 = it->second;
    old_.erase(it);
    if (young_.size() >= half_) young_.swap(old_), young_.clear();
    young_.emplace(hash, chi2);  // used again: keep it young
    return chi2;
  }
  ++misses_;
  return std::nullopt;
}

void ScoreCache::put(std::uint64_t hash, double chi2) {
  std::lock_guard lk(mu_);
  if (half_ == 0) return;
  if (young_.size() >= half_) {
    young_.swap(old_);
    young_.clear();
  }
  young_.insert_or_assign(hash, chi2);
}

std::uint64_t ScoreCache::hits() const {
  std::lock_guard lk(mu_);
  return hits_;
}

std::uint64_t ScoreCache::misses() const {
  std::lock_guard lk(mu_);
  return misses_;
}

std::size_t ScoreCache::size() const {
  std::lock_guard lk(mu_);
  return young_.size() + old_.size();
}

}  // namespace mixforge::evolver
