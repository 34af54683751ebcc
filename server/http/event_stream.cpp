#include "server/http/event_stream.hpp"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "evolver/manager/run_manager.hpp"
#include "evolver/run/run_types_json.hpp"
#include "server/http/problem.hpp"

namespace mixforge::server {

void SseClient::push(std::string frame, std::size_t max_backlog) {
  {
    std::lock_guard lk(mu_);
    if (closed_) return;
    if (frames_.size() >= max_backlog) {
      // A reader this slow would see stale progress anyway; it can reconnect with
      // Last-Event-ID and catch up from the replay buffer.
      closed_ = true;
      frames_.clear();
    } else {
      frames_.push_back(std::move(frame));
    }
  }
  wake();
}

void SseClient::close() {
  {
    std::lock_guard lk(mu_);
    closed_ = true;
  }
  wake();
}

std::vector<std::string> SseClient::take(bool* closed) {
  std::lock_guard lk(mu_);
  std::vector<std::string> out(std::make_move_iterator(frames_.begin()), std::make_move_iterator(frames_.end()));
  frames_.clear();
  *closed = closed_;
  return out;
}

void SseClient::set_waker(std::function<void()> waker) {
  {
    std::lock_guard lk(mu_);
    waker_ = std::move(waker);
  }
  wake();
}

void SseClient::wake() {
  std::function<void()> w;
  {
    std::lock_guard lk(mu_);
    w = waker_;
  }
  if (w) w();
}

EventHub::EventHub(evolver::RunManager& runs, std::size_t max_clients, std::size_t replay_per_run)
    : runs_(runs), max_clients_(max_clients), replay_(replay_per_run) {
  subscription_ = runs_.subscribe("", [this](const evolver::RunEvent& e) { on_event(e); });
}

EventHub::~EventHub() {
  runs_.unsubscribe(subscription_);
  shutdown();
}

std::string EventHub::frame(std::uint64_t id, const std::string& event, const std::string& data) {
  std::string f;
  if (id) f += "id: " + std::to_string(id) + "\n";
  f += "event: " + event + "\n";
  // data must not contain raw newlines; dump() of JSON has none.
  f += "data: " + data + "\n\n";
  return f;
}

void EventHub::prune_locked() const {
  clients_.erase(std::remove_if(clients_.begin(), clients_.end(),
                                [](const std::weak_ptr<SseClient>& w) { return w.expired(); }),
                 clients_.end());
}

void EventHub::admit_locked() const {
  if (closed_) throw HttpError(503, "shutting-down", "the server is shutting down");
  prune_locked();
  if (clients_.size() >= max_clients_)
    throw HttpError(429, "too-many-event-streams",
                    "too many event-stream clients (limit " + std::to_string(max_clients_) + ")")
        .with_header("Retry-After", "5");
}

void EventHub::on_event(const evolver::RunEvent& e) {
  const nlohmann::json j = evolver::to_json(e);
  const std::string type = j.at("type").get<std::string>();
  std::vector<std::shared_ptr<SseClient>> targets;
  std::string f;
  {
    std::lock_guard lk(mu_);
    const std::uint64_t id = next_id_++;
    f = frame(id, type, j.dump());
    auto& q = recent_[e.run_id];
    q.emplace_back(id, f);
    while (q.size() > replay_) q.pop_front();
    prune_locked();
    for (const auto& w : clients_)
      if (auto c = w.lock(); c && c->run_id() == e.run_id) targets.push_back(std::move(c));
    if (e.type == evolver::RunEvent::Type::deleted) recent_.erase(e.run_id);
  }
  for (auto& c : targets) {
    c->push(f);
    // Nothing follows a deletion: end the stream (the client's reconnect gets a 404).
    if (e.type == evolver::RunEvent::Type::deleted) c->close();
  }
}

std::shared_ptr<SseClient> EventHub::open(const std::string& run_id, std::optional<std::uint64_t> last_event_id) {
  // Throws RunNotFound for an unknown id; taken before the lock (it reads the store).
  const evolver::Progress snapshot = runs_.progress(run_id);
  auto client = std::make_shared<SseClient>(run_id);
  std::lock_guard lk(mu_);
  admit_locked();
  client->push("retry: 2000\n\n");
  if (last_event_id) {
    if (auto it = recent_.find(run_id); it != recent_.end())
      for (const auto& [id, f] : it->second)
        if (id > *last_event_id) client->push(f);
  }
  evolver::RunEvent e;
  e.type = evolver::RunEvent::Type::progress;
  e.run_id = run_id;
  e.progress = snapshot;
  e.state = snapshot.state;
  client->push(frame(0, "progress", evolver::to_json(e).dump()));
  clients_.push_back(client);
  return client;
}

std::shared_ptr<SseClient> EventHub::attach(const std::string& key) {
  auto client = std::make_shared<SseClient>(key);
  std::lock_guard lk(mu_);
  admit_locked();
  client->push("retry: 2000\n\n");
  clients_.push_back(client);
  return client;
}

std::size_t EventHub::clients() const {
  std::lock_guard lk(mu_);
  prune_locked();
  return clients_.size();
}

std::uint64_t EventHub::last_id() const {
  std::lock_guard lk(mu_);
  return next_id_ - 1;
}

void EventHub::shutdown() {
  std::vector<std::shared_ptr<SseClient>> all;
  {
    std::lock_guard lk(mu_);
    closed_ = true;
    for (const auto& w : clients_)
      if (auto c = w.lock()) all.push_back(std::move(c));
    clients_.clear();
  }
  for (auto& c : all) c->close();
}

}  // namespace mixforge::server
