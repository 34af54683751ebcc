#pragma once
// Server-Sent Events for /runs/{id}/events: the hub subscribes once to the run manager,
// numbers every event, keeps the last few per run for reconnects (Last-Event-ID), and
// hands frames to the connected clients. An event-stream session (http_server.cpp) takes
// over a client's connection and drains its frames.
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace mixforge::evolver {
class RunManager;
struct RunEvent;
}  // namespace mixforge::evolver

namespace mixforge::server {

// One connected SSE client: a queue of frames. Thread-safe.
class SseClient {
 public:
  explicit SseClient(std::string run_id) : run_id_(std::move(run_id)) {}
  const std::string& run_id() const { return run_id_; }

  // Queues a frame; a client too far behind (max_backlog frames) is closed instead.
  void push(std::string frame, std::size_t max_backlog = 1000);
  void close();
  // Frames to write now; *closed tells whether the stream has ended.
  std::vector<std::string> take(bool* closed);
  // Called from any thread whenever frames arrive or the client closes.
  void set_waker(std::function<void()> waker);

 private:
  void wake();
  const std::string run_id_;
  std::mutex mu_;
  std::deque<std::string> frames_;
  bool closed_ = false;
  std::function<void()> waker_;
};

class EventHub {
 public:
  EventHub(evolver::RunManager& runs, std::size_t max_clients, std::size_t replay_per_run = 256);
  ~EventHub();
  EventHub(const EventHub&) = delete;
  EventHub& operator=(const EventHub&) = delete;

  // A new client of the run: first the events after last_event_id still kept (reconnect),
  // then a snapshot of the run's progress, then live events. Throws RunNotFound, or
  // HttpError 429 when max_clients are connected, 503 after shutdown.
  std::shared_ptr<SseClient> open(const std::string& run_id, std::optional<std::uint64_t> last_event_id);
  // A client fed by another source than the run manager (a bake's progress): it counts
  // against max_clients and is closed at shutdown like the others. Throws HttpError 429 / 503.
  std::shared_ptr<SseClient> attach(const std::string& key);
  std::size_t clients() const;
  std::size_t max_clients() const { return max_clients_; }
  std::uint64_t last_id() const;
  // Closes every client and refuses new ones.
  void shutdown();

  // "id: 7\nevent: progress\ndata: {...}\n\n" (id 0: no id line).
  static std::string frame(std::uint64_t id, const std::string& event, const std::string& data);

 private:
  void on_event(const evolver::RunEvent& e);
  void prune_locked() const;
  void admit_locked() const;  // throws 503 after shutdown, 429 when full

  evolver::RunManager& runs_;
  const std::size_t max_clients_, replay_;
  mutable std::mutex mu_;
  std::uint64_t next_id_ = 1;
  std::map<std::string, std::deque<std::pair<std::uint64_t, std::string>>> recent_;
  mutable std::vector<std::weak_ptr<SseClient>> clients_;
  bool closed_ = false;
  std::uint64_t subscription_ = 0;
};

}  // namespace mixforge::server
