#include "evolver/search/pool.hpp"

#include <algorithm>
#include <numeric>

namespace mixforge::evolver {

std::optional<std::size_t> Pool::find(std::uint64_t hash) const {
  auto it = index_.find(hash);
  if (it == index_.end()) return std::nullopt;
  return it->second;
}

bool Pool::insert(Member member) {
  if (!index_.emplace(member.hash, members_.size()).second) return false;
  members_.push_back(std::move(member));
  return true;
}

void Pool::remove_at(std::size_t i) {
  index_.erase(members_[i].hash);
  if (i + 1 != members_.size()) {
    members_[i] = std::move(members_.back());
    index_[members_[i].hash] = i;
  }
  members_.pop_back();
}

void Pool::clear() {
  members_.clear();
  index_.clear();
}

static bool better(const Member& a, const Member& b) {
  const double ra = a.estimate.rank(), rb = b.estimate.rank();
  return ra != rb ? ra < rb : a.hash < b.hash;
}

std::vector<std::size_t> Pool::top(std::size_t k) const {
  std::vector<std::size_t> idx(members_.size());
  std::iota(idx.begin(), idx.end(), std::size_t{0});
  k = std::min(k, idx.size());
  std::partial_sort(idx.begin(), idx.begin() + static_cast<std::ptrdiff_t>(k), idx.end(),
                    [&](std::size_t a, std::size_t b) { return better(members_[a], members_[b]); });
  idx.resize(k);
  return idx;
}

std::size_t Pool::best() const {
  std::size_t b = 0;
  for (std::size_t i = 1; i < members_.size(); ++i)
    if (better(members_[i], members_[b])) b = i;
  return b;
}

}  // namespace mixforge::evolver
