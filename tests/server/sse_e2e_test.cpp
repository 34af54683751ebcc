// Server-Sent Events: a snapshot at once, progress about every second with ids, new-best
// events, and reconnecting with Last-Event-ID replays what was missed.
#include <gtest/gtest.h>

#include <sys/socket.h>

#include <atomic>

#include "server/api/schema_validator.hpp"
#include "tests/server/daemon_process.hpp"
#include "tests/server/sse_reader.hpp"

namespace mixforge::test {
namespace {

// A run started by POST /runs; its id ("" when the daemon refused it).
std::string started_run(httplib::Client& c, int width) {
  auto created = c.Post("/api/v1/runs", small_run_json(width), "application/json");
  if (!created || created->status != 201) return "";
  return nlohmann::json::parse(created->body)["id"];
}

TEST(SseE2E, ProgressNewBestAndReplay) {
  Daemon d;
  auto c = d.client();
  auto created = c.Post("/api/v1/runs", small_run_json(16), "application/json");
  ASSERT_EQ(created->status, 201);
  const std::string id = nlohmann::json::parse(created->body)["id"];
  const std::string path = "/api/v1/runs/" + id + "/events";
  const server::SchemaSet schemas;

  // First: a snapshot without id; then numbered events; wait for three numbered progress
  // events (about one a second).
  auto events = read_events(d, path, {}, [](const std::vector<SseEvent>& es) {
    int progress = 0;
    for (const auto& e : es) progress += e.event == "progress" && e.id > 0;
    return progress >= 3;
  });
  ASSERT_GE(events.size(), 4u);
  EXPECT_EQ(events[0].event, "progress");
  EXPECT_EQ(events[0].id, 0u);
  std::uint64_t prev = 0;
  for (const auto& e : events) {
    const auto j = nlohmann::json::parse(e.data);
    const auto issues = schemas.check("run_event.schema.json", j);
    EXPECT_TRUE(issues.empty()) << issues[0].pointer << ": " << issues[0].message << "\n" << e.data.substr(0, 1500);
    EXPECT_EQ(j["run_id"], id);
    EXPECT_EQ(j["type"], e.event);
    if (e.id) {
      EXPECT_GT(e.id, prev);
      prev = e.id;
    }
  }
  // A fresh 16-bit run improves quickly: new_best events arrive (at once, not batched).
  const bool saw_best = std::any_of(events.begin(), events.end(), [](const SseEvent& e) { return e.event == "new_best"; });
  if (!saw_best) {
    auto more = read_events(d, path, {}, [](const std::vector<SseEvent>& es) {
      return std::any_of(es.begin(), es.end(), [](const SseEvent& e) { return e.event == "new_best"; });
    });
    EXPECT_TRUE(std::any_of(more.begin(), more.end(), [](const SseEvent& e) { return e.event == "new_best"; }));
  }

  // Reconnect with Last-Event-ID = an early id: the missed events come first, in order.
  std::uint64_t first_id = 0;
  for (const auto& e : events)
    if (e.id) {
      first_id = e.id;
      break;
    }
  ASSERT_GT(first_id, 0u);
  auto replay = read_events(d, path, {{"Last-Event-ID", std::to_string(first_id)}},
                            [&](const std::vector<SseEvent>& es) {
                              for (const auto& e : es)
                                if (e.id > prev) return true;
                              return false;
                            });
  ASSERT_GE(replay.size(), 2u);
  EXPECT_EQ(replay[0].id, first_id + 1) << "replay starts right after Last-Event-ID";
  for (std::size_t i = 1; i < replay.size() && replay[i].id; ++i) EXPECT_EQ(replay[i].id, replay[i - 1].id + 1);
}

TEST(SseE2E, ClientLimitAndDisconnect) {
  Daemon d({"--max-sse-clients", "1"});
  auto c = d.client();
  auto created = c.Post("/api/v1/runs?start=false", small_run_json(8), "application/json");
  const std::string id = nlohmann::json::parse(created->body)["id"];
  const std::string path = "/api/v1/runs/" + id + "/events";
  // One client holds the only slot (a raw socket, so the test decides when it closes).
  const int fd = connect_loopback(d.port());
  const std::string req = "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n";
  ASSERT_EQ(::send(fd, req.data(), req.size(), MSG_NOSIGNAL), static_cast<ssize_t>(req.size()));
  std::string got;
  char buf[4096];
  while (got.find("event: progress") == std::string::npos) {
    const auto n = ::recv(fd, buf, sizeof buf, 0);
    ASSERT_GT(n, 0);
    got.append(buf, static_cast<std::size_t>(n));
  }
  EXPECT_EQ(got.rfind("HTTP/1.1 200", 0), 0u);
  EXPECT_NE(got.find("Content-Type: text/event-stream"), std::string::npos);
  auto second = c.Get(path.c_str());
  ASSERT_TRUE(second);
  EXPECT_EQ(second->status, 429);
  EXPECT_EQ(second->get_header_value("Content-Type"), "application/problem+json");
  // The holder goes away: the server notices the closed socket and frees the slot.
  ::close(fd);
  EXPECT_TRUE(eventually([&] {
    auto m = c.Get("/metrics");
    return m && m->body.find("mixforge_sse_clients 0") != std::string::npos;
  }, 20));
  std::atomic<bool> connected{false};
  std::thread third([&] {
    auto tc = d.client(30);
    tc.Get(path.c_str(), [&](const char*, std::size_t) {
      connected = true;
      return false;
    });
  });
  third.join();
  EXPECT_TRUE(connected.load());
  // Shutdown closes open streams and exits cleanly.
  const auto [code, secs] = d.terminate();
  EXPECT_EQ(code, 0);
}

// Issue 14: pause, resume and stop reach event-stream clients as one `state` event each.
TEST(SseE2E, PauseResumeAndStopAreStateEvents) {
  Daemon d;
  auto c = d.client();
  const std::string id = started_run(c, 8);
  ASSERT_FALSE(id.empty());
  std::atomic<bool> listening{false};
  std::thread control([&] {
    while (!listening) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    auto cc = d.client();
    for (const char* op : {"pause", "resume", "stop"})
      EXPECT_EQ(cc.Post(("/api/v1/runs/" + id + "/" + op).c_str(), "{}", "application/json")->status, 200) << op;
  });
  std::vector<std::string> states;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);  // a bound, not a speed
  read_events(d, "/api/v1/runs/" + id + "/events", {}, [&](const std::vector<SseEvent>& es) {
    listening = true;
    if (std::chrono::steady_clock::now() > deadline) return true;
    states.clear();
    for (const auto& e : es)
      if (e.event == "state") states.push_back(nlohmann::json::parse(e.data)["state"]);
    return states.size() >= 3 && states.back() == "stopped";
  });
  control.join();
  EXPECT_EQ(states, (std::vector<std::string>{"paused", "running", "stopped"}));
}

// Deleting a run ends its event streams with a `deleted` event: they used to go on with
// keep-alives for ever, each holding a client slot, after a last `state: stopped`.
TEST(SseE2E, DeletingARunEndsItsStreams) {
  Daemon d;
  auto c = d.client();
  const std::string id = started_run(c, 8);
  ASSERT_FALSE(id.empty());
  std::atomic<bool> listening{false};
  std::thread remover([&] {
    while (!listening) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    EXPECT_EQ(d.client().Delete(("/api/v1/runs/" + id).c_str())->status, 204);
  });
  bool gave_up = false;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(90);  // a bound, not a speed
  const auto events = read_events(d, "/api/v1/runs/" + id + "/events", {}, [&](const std::vector<SseEvent>&) {
    listening = true;
    gave_up = std::chrono::steady_clock::now() > deadline;
    return gave_up;
  });
  remover.join();
  EXPECT_FALSE(gave_up) << "the stream did not end after the run was deleted";
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events.back().event, "deleted");
  const auto j = nlohmann::json::parse(events.back().data);
  const server::SchemaSet schemas;
  const auto issues = schemas.check("run_event.schema.json", j);
  EXPECT_TRUE(issues.empty()) << issues[0].pointer << ": " << issues[0].message << "\n" << events.back().data;
  EXPECT_EQ(j["type"], "deleted");
  EXPECT_EQ(j["run_id"], id);
  const auto metrics = c.Get("/metrics");
  EXPECT_NE(metrics->body.find("mixforge_sse_clients 0"), std::string::npos) << metrics->body.substr(0, 2000);
}

// Issue 14 section 4: HEAD on an event stream answers its headers without opening it.
TEST(SseE2E, HeadOnTheEventStreamHoldsNoSlot) {
  Daemon d({"--max-sse-clients", "1"});
  auto c = d.client();
  auto created = c.Post("/api/v1/runs?start=false", small_run_json(8), "application/json");
  const std::string id = nlohmann::json::parse(created->body)["id"];
  for (int i = 0; i < 3; ++i) {
    auto h = c.Head(("/api/v1/runs/" + id + "/events").c_str());
    ASSERT_TRUE(h);
    EXPECT_EQ(h->status, 200);
    EXPECT_EQ(h->get_header_value("Content-Type"), "text/event-stream");
    EXPECT_TRUE(h->body.empty());
  }
}

}  // namespace
}  // namespace mixforge::test
