#pragma once
// Where the chaos clients send their requests, and whether the daemon is meant to be up.
// The supervisor bumps `epoch` before it signals the daemon and again once a new process
// listens, so a client can tell an answer lost to a deliberate kill (expected) from one
// lost while the daemon was supposed to be serving (a violation).
#include <atomic>
#include <cstdint>
#include <set>
#include <shared_mutex>
#include <string>

namespace mixforge::chaos {

struct Target {
  std::atomic<int> port{0};
  std::atomic<std::uint64_t> epoch{0};
  std::atomic<bool> up{false};
  std::atomic<bool> done{false};
  std::atomic<bool> held{false};
  std::atomic<bool> stalled{false};  // a request went unanswered while up: dump the daemon's threads  // set before taking `gate` exclusively (no writer starvation)
  // Clients hold it shared for each operation; the post-restart checks take it exclusively
  // so that they see a quiet daemon (no request in flight).
  std::shared_mutex gate;
};

// Every status the daemon may send (BRIEF.md decisions; the OpenAPI document lists them).
inline const std::set<int>& documented_statuses() {
  static const std::set<int> s = {200, 201, 202, 204, 400, 401, 403, 404, 405,
                                  409, 413, 415, 421, 422, 429, 431, 503};
  return s;
}

}  // namespace mixforge::chaos
