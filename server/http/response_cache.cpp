#include "server/http/response_cache.hpp"

namespace mixforge::server {

std::optional<Response> ResponseCache::get(const std::string& key) const {
  if (ttl_s_ <= 0) return std::nullopt;
  std::lock_guard lk(mu_);
  auto it = entries_.find(key);
  if (it == entries_.end()) return std::nullopt;
  if (std::chrono::duration<double>(Clock::now() - it->second.stored).count() > ttl_s_) return std::nullopt;
  ++hits_;
  return it->second.response;
}

void ResponseCache::put(const std::string& key, const Response& response) {
  if (ttl_s_ <= 0 || response.status != 200 || response.stream) return;
  std::lock_guard lk(mu_);
  if (entries_.size() >= max_entries_) {
    // Drop the expired ones; if all are fresh, start over (the cache only saves work).
    const auto now = Clock::now();
    for (auto it = entries_.begin(); it != entries_.end();)
      it = std::chrono::duration<double>(now - it->second.stored).count() > ttl_s_ ? entries_.erase(it) : std::next(it);
    if (entries_.size() >= max_entries_) entries_.clear();
  }
  entries_[key] = Entry{Clock::now(), response};
}

void ResponseCache::invalidate(const std::string& prefix) {
  std::lock_guard lk(mu_);
  for (auto it = entries_.lower_bound(prefix);
       it != entries_.end() && it->first.compare(0, prefix.size(), prefix) == 0;)
    it = entries_.erase(it);
}

std::size_t ResponseCache::hits() const {
  std::lock_guard lk(mu_);
  return hits_;
}

}  // namespace mixforge::server
