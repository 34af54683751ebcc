#pragma once
// Reading a Server-Sent Events stream from the e2e daemon: events (id, type, data) until
// the caller has what it wants or the daemon closes the stream.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "tests/server/daemon_process.hpp"

namespace mixforge::test {

struct SseEvent {
  std::uint64_t id = 0;  // 0: none
  std::string event, data;
};

// Reads events until `want` returns true or the stream ends.
inline std::vector<SseEvent> read_events(const Daemon& d, const std::string& path, httplib::Headers headers,
                                         const std::function<bool(const std::vector<SseEvent>&)>& want) {
  auto c = d.client(30);
  std::vector<SseEvent> events;
  std::string buffer;
  SseEvent current;
  auto r = c.Get(path.c_str(), headers, [&](const char* data, std::size_t n) {
    buffer.append(data, n);
    std::size_t nl;
    while ((nl = buffer.find('\n')) != std::string::npos) {
      const std::string line = buffer.substr(0, nl);
      buffer.erase(0, nl + 1);
      if (line.empty()) {
        if (!current.event.empty()) events.push_back(current);
        current = {};
        if (want(events)) return false;
      } else if (line.rfind("id: ", 0) == 0) {
        current.id = std::stoull(line.substr(4));
      } else if (line.rfind("event: ", 0) == 0) {
        current.event = line.substr(7);
      } else if (line.rfind("data: ", 0) == 0) {
        current.data = line.substr(6);
      }
    }
    return true;
  });
  return events;
}

// The whole stream, until the daemon closes it.
inline std::vector<SseEvent> read_all_events(const Daemon& d, const std::string& path) {
  return read_events(d, path, {}, [](const std::vector<SseEvent>&) { return false; });
}

}  // namespace mixforge::test
