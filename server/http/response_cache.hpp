#pragma once
// A short-lived cache of GET answers that are costly to compute and read often while a
// run evolves (pool pages, best lists: each one copies and sorts the live pool). An
// answer is reused for at most `ttl` seconds, so pages of an active run may be that much
// behind; run control (pause, resume, stop, delete) drops the run's entries at once.
#include <chrono>
#include <cstddef>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "server/http/http_types.hpp"

namespace mixforge::server {

class ResponseCache {
 public:
  // ttl_s <= 0 disables caching.
  ResponseCache(double ttl_s, std::size_t max_entries = 512) : ttl_s_(ttl_s), max_entries_(max_entries) {}
  std::optional<Response> get(const std::string& key) const;
  void put(const std::string& key, const Response& response);
  // Drops every entry whose key starts with prefix.
  void invalidate(const std::string& prefix);
  std::size_t hits() const;

 private:
  using Clock = std::chrono::steady_clock;
  struct Entry {
    Clock::time_point stored;
    Response response;
  };
  const double ttl_s_;
  const std::size_t max_entries_;
  mutable std::mutex mu_;
  std::map<std::string, Entry> entries_;
  mutable std::size_t hits_ = 0;
};

}  // namespace mixforge::server
