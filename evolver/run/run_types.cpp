#include "evolver/run/run_types.hpp"

#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <random>

namespace mixforge::evolver {

double unix_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string random_id(char prefix) {
  std::random_device rd;
  const std::uint64_t r = (std::uint64_t{rd()} << 32) ^ rd() ^
                          static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  char buf[16];
  std::snprintf(buf, sizeof buf, "%c%011" PRIx64, prefix, static_cast<std::uint64_t>(r & 0xfffffffffffull));
  return buf;
}

std::string_view state_name(RunState s) {
  switch (s) {
    case RunState::created: return "created";
    case RunState::running: return "running";
    case RunState::paused: return "paused";
    case RunState::stopped: return "stopped";
    case RunState::finished: return "finished";
    case RunState::failed: return "failed";
  }
  return "?";
}

std::optional<RunState> state_from_name(std::string_view name) {
  for (RunState s : {RunState::created, RunState::running, RunState::paused, RunState::stopped,
                     RunState::finished, RunState::failed})
    if (state_name(s) == name) return s;
  return std::nullopt;
}

std::optional<PoolQuery::Order> pool_order_from_name(std::string_view name) {
  if (name == "chi2") return PoolQuery::Order::chi2;
  if (name == "born" || name == "age") return PoolQuery::Order::born;
  if (name == "steps") return PoolQuery::Order::steps;
  return std::nullopt;
}

}  // namespace mixforge::evolver
