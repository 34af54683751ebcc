#include "tests/chaos/client.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <thread>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "support/raw_socket.hpp"

#ifdef MIXFORGE_CHAOS_CONTRACT
#include "tests/contract/contract_validator.hpp"
#endif

namespace mixforge::chaos {

namespace {
using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

const char* const run_states[] = {"created", "running", "paused", "stopped", "finished"};
bool legal_state(const std::string& s) {
  for (const char* k : run_states)
    if (s == k) return true;
  return false;
}

std::string hex(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

std::uint64_t mask(int width) { return width >= 64 ? ~0ull : (1ull << width) - 1; }

// A raw TCP exchange with the daemon: what it answered before closing or the timeout.
struct RawAnswer {
  bool connected = false;
  std::string text;
};

// Reads until the peer closes, a full response with Content-Length is in, or timeout.
void read_answer(int fd, std::string& out, double timeout_s, bool until_headers = false) {
  const auto deadline = Clock::now() + std::chrono::duration<double>(timeout_s);
  char buf[8192];
  while (Clock::now() < deadline) {
    const auto he = out.find("\r\n\r\n");
    if (he != std::string::npos) {
      if (until_headers) return;
      const auto cl = out.find("Content-Length: ");
      if (cl != std::string::npos && cl < he && out.size() >= he + 4 + std::stoul(out.substr(cl + 16))) return;
    }
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 50) <= 0) continue;
    const auto n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) return;
    out.append(buf, static_cast<std::size_t>(n));
  }
}

int status_of(const std::string& text) {
  // "HTTP/1.1 200 OK"
  if (text.rfind("HTTP/1.", 0) != 0 || text.size() < 12) return 0;
  try {
    return std::stoi(text.substr(9, 3));
  } catch (const std::exception&) {
    return -1;
  }
}

std::string header_of(const std::string& text, const std::string& name) {
  const auto he = text.find("\r\n\r\n");
  const std::string head = text.substr(0, he);
  std::string lower;
  for (char c : head) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const auto p = lower.find("\r\n" + name + ":");
  if (p == std::string::npos) return {};
  auto b = p + 3 + name.size();
  while (b < head.size() && head[b] == ' ') ++b;
  return head.substr(b, head.find("\r\n", b) - b);
}

template <class T>
const T& pick(Rng& rng, const std::vector<T>& v) {
  return v[std::uniform_int_distribution<std::size_t>(0, v.size() - 1)(rng)];
}

int uniform(Rng& rng, int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }
bool chance(Rng& rng, double p) { return std::uniform_real_distribution<double>(0, 1)(rng) < p; }

// Run widths: mostly small (exact scoring, cheap), some 17..32 and some above 32.
int run_width(Rng& rng) {
  const double u = std::uniform_real_distribution<double>(0, 1)(rng);
  if (u < 0.5) return uniform(rng, 8, 16);
  if (u < 0.75) return uniform(rng, 17, 24);
  if (u < 0.85) return uniform(rng, 25, 32);
  return uniform(rng, 33, 64);
}
}  // namespace

Client::Client(int index, std::uint64_t seed, Target& target, Ledger& ledger)
    : index_(index), rng_(seed * 0x9e3779b97f4a7c15ull + static_cast<std::uint64_t>(index) + 1),
      target_(target), ledger_(ledger) {}

Client::~Client() = default;

httplib::Client& Client::http() {
  const int port = target_.port.load();
  if (!http_ || port != http_port_) {
    http_ = std::make_unique<httplib::Client>("127.0.0.1", port);
    http_->set_connection_timeout(5, 0);
    http_->set_keep_alive(true);
    http_port_ = port;
  }
  return *http_;
}

bool Client::expected_failure(std::uint64_t epoch_at_start) const {
  return !target_.up.load() || target_.epoch.load() != epoch_at_start;
}

void Client::check_status(const std::string& op, const std::string& what, int status, const std::set<int>& allowed,
                          const std::string& content_type, bool has_retry_after, const std::string& body) {
  const std::string tail = ": " + body.substr(0, 300);
  if (status >= 500 && status != 503) {
    ledger_.violation(op + ": " + what + " answered " + std::to_string(status) + tail);
  } else if (!documented_statuses().count(status)) {
    ledger_.violation(op + ": " + what + " answered undocumented status " + std::to_string(status) + tail);
  } else if (status != 503 && !allowed.count(status)) {
    ledger_.violation(op + ": " + what + " answered unexpected status " + std::to_string(status) + tail);
  }
  if (status == 429 && !has_retry_after) ledger_.violation(op + ": " + what + " answered 429 without Retry-After");
  if (status >= 400 && content_type.rfind("application/problem+json", 0) != 0)
    ledger_.violation(op + ": " + what + " answered " + std::to_string(status) + " with Content-Type \"" +
                      content_type + "\", not application/problem+json" + tail);
}

std::optional<Client::Answer> Client::call(const std::string& op, const std::string& method, const std::string& path,
                                           const std::string& body, const std::set<int>& allowed, int timeout_s) {
  const std::uint64_t epoch = target_.epoch.load();
  httplib::Client& c = http();
  c.set_read_timeout(timeout_s, 0);
  c.set_write_timeout(10, 0);
  const auto t0 = Clock::now();
  httplib::Result r = method == "GET"    ? c.Get(path)
                      : method == "POST" ? c.Post(path, body, "application/json")
                                         : c.Delete(path);
  const double seconds = since(t0);
  const std::string what = method + " " + path;
  if (!r) {
    const bool expected = expected_failure(epoch);
    ledger_.transport_error(op, expected);
    if (!expected) {
      ledger_.violation(op + ": " + what + ": no answer while the daemon was up (" + httplib::to_string(r.error()) +
                        " after " + std::to_string(seconds) + " s)");
      target_.stalled = true;
    }
    http_.reset();
    return std::nullopt;
  }
  ledger_.record(op, r->status, seconds);
  Answer a{r->status, r->body, r->get_header_value("Content-Type")};
  check_status(op, what, a.status, allowed, a.content_type, r->has_header("Retry-After"), a.body);
#ifdef MIXFORGE_CHAOS_CONTRACT
  {
    // The answer against the OpenAPI document: status listed, content type, body schema.
    contract::Exchange x{method, path, r->status, {}, r->body, true};
    for (const auto& [k, v] : r->headers) x.headers.emplace_back(k, v);
    for (const auto& problem : contract::ContractValidator::bundled().check(x))
      ledger_.violation(op + ": " + what + " -> " + std::to_string(r->status) + ": contract: " + problem);
  }
#endif
  if (a.content_type.find("json") != std::string::npos && !a.body.empty()) {
    if (!json::accept(a.body)) ledger_.violation(op + ": " + what + " answered invalid JSON: " + a.body.substr(0, 200));
  }
  return a;
}

std::string Client::pick_run_id() {
  if (chance(rng_, 0.03)) return "r" + std::to_string(rng_() % 1000000) + "nope";
  if (auto id = ledger_.pick_run(rng_)) return *id;
  return "rnotarun0000";
}

std::string Client::random_program(int width) {
  std::string text;
  const int steps = uniform(rng_, 1, 5);
  for (int i = 0; i < steps; ++i) {
    const int k = width > 1 ? uniform(rng_, 1, width - 1) : 1;
    switch (uniform(rng_, 0, 5)) {
      case 0:
      case 1: text += "x ^= x >> " + std::to_string(k) + ";"; break;
      case 2:
      case 3: text += "x *= " + hex((rng_() & mask(width)) | 1) + ";"; break;
      case 4: text += "x += x << " + std::to_string(k) + ";"; break;
      default: text += "x ^= " + hex(rng_() & mask(width)) + ";"; break;
    }
    text += " ";
  }
  return text;
}

void Client::op_simple(const std::string& op, const std::string& path) { call(op, "GET", path, "", {200}); }

void Client::op_list_runs() {
  std::string path = "/api/v1/runs?limit=" + std::to_string(uniform(rng_, 1, 1000));
  if (chance(rng_, 0.3)) path += "&state=" + std::string(run_states[uniform(rng_, 0, 4)]);
  if (chance(rng_, 0.2)) path += "&offset=" + std::to_string(uniform(rng_, 0, 50));
  auto a = call("runs.list", "GET", path, "", {200});
  if (!a || a->status != 200) return;
  const json j = json::parse(a->body, nullptr, false);
  if (j.is_discarded() || !j.contains("items")) return;
  for (const auto& r : j["items"])
    if (!legal_state(r.value("state", "")))
      ledger_.violation("runs.list: run " + r.value("id", "?") + " in illegal state " + r.value("state", "?"));
}

void Client::op_get_run() {
  const std::string id = pick_run_id();
  auto a = call("runs.get", "GET", "/api/v1/runs/" + id, "", {200, 404});
  if (!a || a->status != 200) return;
  const json j = json::parse(a->body, nullptr, false);
  if (!j.is_discarded() && !legal_state(j.value("state", "")))
    ledger_.violation("runs.get: run " + id + " in illegal state " + j.value("state", "?"));
}

void Client::op_create_run() {
  const int width = run_width(rng_);
  json cfg = {{"name", "chaos c" + std::to_string(index_) + " #" + std::to_string(created_++)},
              {"width", width},
              {"max_steps", uniform(rng_, 2, 6)},
              {"pool_size", uniform(rng_, 8, 48)},
              {"threads", chance(rng_, 0.8) ? 1 : 2},
              {"seed", rng_() >> 11}};
  // Now and then a tiny pool with more workers than members (legal per the schema).
  if (chance(rng_, 0.1)) {
    cfg["pool_size"] = uniform(rng_, 2, 4);
    cfg["threads"] = uniform(rng_, 2, 4);
  }
  const int b = uniform(rng_, 0, 9);
  if (b < 5)
    cfg["budget"] = {{"seconds", uniform(rng_, 1, 30)}};
  else if (b < 9)
    cfg["budget"] = {{"tournaments", uniform(rng_, 200, 20000)}};
  json precision = {{"leader_interval", uniform(rng_, 100, 2000)}};
  if (width > 24 && chance(rng_, 0.5)) precision["exact_leaders"] = false;  // spare the 2 cores
  cfg["precision"] = precision;
  const bool start = chance(rng_, 0.8);
  auto a = call("runs.create", "POST", std::string("/api/v1/runs") + (start ? "" : "?start=false"), cfg.dump(),
                {201, 429});
  if (!a) {
    ledger_.create_unacknowledged();
    return;
  }
  if (a->status != 201) return;
  const json j = json::parse(a->body, nullptr, false);
  if (j.is_discarded() || !j.contains("id")) {
    ledger_.violation("runs.create: 201 without an id: " + a->body.substr(0, 200));
    return;
  }
  ledger_.run_created(j["id"].get<std::string>(), width);
  const std::string state = j.value("state", "");
  if (state != (start ? "running" : "created") && !(start && state == "finished"))
    ledger_.violation("runs.create: new run " + j["id"].get<std::string>() + " in state " + state);
}

void Client::op_create_invalid() {
  static const std::vector<std::pair<std::string, std::set<int>>> bodies = {
      {R"({"width": 0})", {422}},
      {R"({"width": 65})", {422}},
      {R"({"width": "16"})", {422}},
      {R"({"pool_size": 1})", {422}},
      {R"({"max_steps": 0})", {422}},
      {R"({"width": 16, "unknown_field": true})", {422}},
      {R"({"budget": {"seconds": -1}})", {422}},
      {R"({"budget": {"tournaments": 0}})", {422}},
      {R"({"early_reject": {"confidence": 1.5}})", {422}},
      {R"({"kind_sequence": ["not-a-kind"]})", {422}},
      {R"({"temperature": "hot"})", {422}},
      {R"({"threads": -3})", {422}},
      {R"({"precision": {"initial_samples": 1}})", {422}},
      {R"([16, 8])", {422}},
      {R"("width")", {422}},
      {R"({"width": 16,)", {400}},
      {"{\"name\": \"\xff\xfe\"}", {400}},
      {R"({"width": 16} trailing)", {400}},
  };
  const auto& [body, allowed] = pick(rng_, bodies);
  call("runs.create_invalid", "POST", "/api/v1/runs?start=" + std::string(chance(rng_, 0.5) ? "true" : "false"),
       body, allowed);
}

void Client::op_control(const std::string& action) {
  const std::string id = pick_run_id();
  std::string body = "{}";
  if (action == "resume") {
    const int b = uniform(rng_, 0, 3);
    if (b == 1) body = json{{"budget", {{"tournaments", uniform(rng_, 200, 5000)}}}}.dump();
    if (b == 2) body = json{{"budget", {{"seconds", uniform(rng_, 1, 10)}}}}.dump();
  }
  std::set<int> allowed = {200, 404, 409};
  if (action == "resume") allowed.insert(429);
  auto a = call("runs." + action, "POST", "/api/v1/runs/" + id + "/" + action, body, allowed);
  if (!a || a->status != 200) return;
  const json j = json::parse(a->body, nullptr, false);
  if (j.is_discarded()) return;
  // The answer shows the run as read after the transition: another client's control call
  // may already have moved it on, so only legality is checked here.
  const std::string state = j.value("state", "");
  if (!legal_state(state) || state == "created")
    ledger_.violation("runs." + action + " of " + id + " answered 200 with state " + state);
}

void Client::op_delete() {
  // Deleting is rarer than creating, so runs accumulate slowly as in real use.
  const std::string id = pick_run_id();
  auto a = call("runs.delete", "DELETE", "/api/v1/runs/" + id, "", {204, 404});
  if (!a) {
    ledger_.delete_unacknowledged(id);
    return;
  }
  if (a->status == 204) ledger_.run_deleted(id);
}

void Client::op_pool() {
  std::string path = "/api/v1/runs/" + pick_run_id() + "/pool?limit=" + std::to_string(uniform(rng_, 1, 200));
  static const std::vector<std::string> orders = {"chi2", "born", "steps"};
  if (chance(rng_, 0.5)) path += "&order=" + pick(rng_, orders);
  if (chance(rng_, 0.3)) path += "&desc=true";
  if (chance(rng_, 0.2)) path += "&min_steps=" + std::to_string(uniform(rng_, 1, 3));
  if (chance(rng_, 0.2)) path += "&kinds=mul-const,xorshift-right";
  if (chance(rng_, 0.1)) path += "&uses=mul-const";
  if (chance(rng_, 0.1)) path += "&exact=true";
  if (chance(rng_, 0.1)) path += "&offset=" + std::to_string(uniform(rng_, 0, 40));
  call("runs.pool", "GET", path, "", {200, 404});
}

void Client::op_best() {
  call("runs.best", "GET", "/api/v1/runs/" + pick_run_id() + "/best?limit=" + std::to_string(uniform(rng_, 1, 20)), "",
       {200, 404});
}

void Client::op_history() {
  std::string path = "/api/v1/runs/" + pick_run_id() + "/history";
  if (chance(rng_, 0.3)) path += "?max_points=" + std::to_string(uniform(rng_, 2, 100));
  call("runs.history", "GET", path, "", {200, 404});
}

void Client::op_hall_of_fame() {
  std::string path = "/api/v1/hall-of-fame?limit=1000";
  const int u = uniform(rng_, 0, 3);
  std::set<int> allowed = {200};
  if (u == 1) path += "&width=" + std::to_string(run_width(rng_));
  if (u == 2) {
    path += "&run_id=" + pick_run_id();
    allowed.insert(404);
  }
  auto a = call("hall_of_fame", "GET", path, "", allowed);
  if (!a || a->status != 200) return;
  const json j = json::parse(a->body, nullptr, false);
  if (j.is_discarded() || !j.contains("items")) return;
  for (const auto& e : j["items"]) {
    FameEntry f;
    f.run_id = e.value("run_id", "");
    f.program_id = e.value("id", "");
    f.text = e.value("text", "");
    f.width = e.value("width", 0);
    f.exact = e.value("exact", false);
    f.chi2 = e.value("chi2", 0.0);
    ledger_.fame_reported(f);
  }
}

void Client::op_function() {
  auto f = ledger_.pick_fame(rng_);
  if (!f) return op_simple("healthz", "/healthz");
  const bool matrix = chance(rng_, 0.2) && f->width <= 20;
  // A hall-of-fame function stays known after its run is deleted: 404 is a violation.
  auto a = call("functions.get", "GET", "/api/v1/functions/" + f->program_id + (matrix ? "" : "?matrix=false"), "",
                {200});
  if (!a || a->status != 200 || !f->exact) return;
  const json j = json::parse(a->body, nullptr, false);
  if (j.is_discarded() || !j.contains("chi2_exact") || !j["chi2_exact"].is_number()) {
    ledger_.violation("functions.get " + f->program_id + ": hall-of-fame entry had an exact chi2, the function has none");
    return;
  }
  const double c = j["chi2_exact"].get<double>();
  if (std::abs(c - f->chi2) > 1e-12 * std::abs(f->chi2)) {
    char buf[120];
    std::snprintf(buf, sizeof buf, "%.17g in the hall of fame, %.17g now", f->chi2, c);
    ledger_.violation("functions.get " + f->program_id + ": exact chi2 " + buf);
  }
}

void Client::op_evaluate(bool exact) {
  json body;
  int width;
  std::string op;
  if (exact) {
    // Mostly small widths; now and then a 24..32-bit one that queues for a slot.
    width = chance(rng_, 0.9) ? uniform(rng_, 8, 20) : uniform(rng_, 24, chance(rng_, 0.7) ? 26 : 32);
    body = {{"exact", true}};
    op = width >= 24 ? "evaluate.exact_wide" : "evaluate.exact";
  } else {
    width = uniform(rng_, 17, 64);
    body = {{"samples", 1ll << uniform(rng_, 10, 18)}, {"seed", rng_() >> 11}};
    op = "evaluate.sampled";
  }
  body["width"] = width;
  body["matrix"] = chance(rng_, 0.3);
  const bool invalid = chance(rng_, 0.1);
  body["program"] = invalid ? "x ^= x >> 3; x *= 0x10;" : random_program(width);
  std::set<int> allowed = {200, 429};
  if (invalid) allowed = {422, 429};
  call(op, "POST", "/api/v1/evaluate", body.dump(), allowed, 120);
}

void Client::op_export_get() {
  static const std::vector<std::string> targets = {"glsl", "hlsl", "wgsl", "msl", "cuda", "cpp", "bundle"};
  auto f = ledger_.pick_fame(rng_);
  if (!f) return op_simple("metrics", "/metrics");
  const std::string& t = pick(rng_, targets);
  std::set<int> allowed = {200};
  if (t == "wgsl" && f->width > 32) allowed = {422};  // WGSL has no 64-bit integers
  std::string path = "/api/v1/functions/" + f->program_id + "/export?target=" + t;
  if (chance(rng_, 0.3)) path += "&inverse=true";
  call("export.get", "GET", path, "", allowed);
}

void Client::op_export_post() {
  static const std::vector<std::string> targets = {"glsl", "hlsl", "msl", "cuda", "cpp"};
  const int width = uniform(rng_, 8, 32);
  json body = {{"target", pick(rng_, targets)}, {"programs", json::array({{{"program", random_program(width)}, {"width", width}}})}};
  if (chance(rng_, 0.3)) body["name"] = "chaos_hash";
  call("export.post", "POST", "/api/v1/export", body.dump(), {200});
}

void Client::op_events() {
  const std::string id = pick_run_id();
  const std::uint64_t epoch = target_.epoch.load();
  const int fd = test::try_connect_loopback(target_.port.load());
  if (fd < 0) {
    const bool expected = expected_failure(epoch);
    ledger_.transport_error("runs.events", expected);
    if (!expected) ledger_.violation("runs.events: cannot connect while the daemon was up");
    return;
  }
  const auto t0 = Clock::now();
  test::send_all(fd, "GET /api/v1/runs/" + id + "/events HTTP/1.1\r\nHost: 127.0.0.1:" +
                         std::to_string(target_.port.load()) + "\r\nAccept: text/event-stream\r\n\r\n");
  std::string text;
  read_answer(fd, text, 15, true);
  const int status = status_of(text);
  if (status <= 0) {
    ::close(fd);
    const bool expected = expected_failure(epoch);
    ledger_.transport_error("runs.events", expected);
    if (!expected) {
      ledger_.violation("runs.events " + id + ": no status line while the daemon was up: " + text.substr(0, 100));
      target_.stalled = true;
    }
    return;
  }
  ledger_.record("runs.events", status, since(t0));
  check_status("runs.events", "GET /api/v1/runs/" + id + "/events", status, {200, 404, 429},
               header_of(text, "content-type"), !header_of(text, "retry-after").empty(),
               text.substr(text.find("\r\n\r\n") == std::string::npos ? 0 : text.find("\r\n\r\n") + 4));
  if (status == 200) {
    // Read a while, or stall without reading (a client that went away uncleanly).
    const double hold = std::uniform_real_distribution<double>(0.05, 3.0)(rng_);
    if (chance(rng_, 0.7))
      read_answer(fd, text, hold);
    else
      std::this_thread::sleep_for(std::chrono::duration<double>(hold));
  }
  ::close(fd);
}

void Client::op_malformed() {
  struct Case {
    std::string name;
    std::function<std::string(const std::string& host)> bytes;
    std::set<int> allowed;
    bool may_close;  // closing without an answer is a fine reaction
  };
  static const std::vector<Case> cases = {
      {"garbage", [](const std::string&) { return std::string("GARBAGE\r\n\r\n"); }, {400}, true},
      {"binary", [](const std::string&) { return std::string("\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03", 11); }, {400}, true},
      {"header-without-colon",
       [](const std::string& h) { return "GET /healthz HTTP/1.1\r\nHost: " + h + "\r\nBad Header Line\r\n\r\n"; },
       {400},
       true},
      {"huge-header",
       [](const std::string& h) {
         return "GET /api/v1/runs HTTP/1.1\r\nHost: " + h + "\r\nX-Big: " + std::string(20000, 'a') + "\r\n\r\n";
       },
       {431},
       true},
      {"huge-target",
       [](const std::string& h) { return "GET /api/v1/runs/" + std::string(20000, 'a') + " HTTP/1.1\r\nHost: " + h + "\r\n\r\n"; },
       {431, 404, 400},
       true},
      {"truncated-body",
       [](const std::string& h) {
         return "POST /api/v1/runs HTTP/1.1\r\nHost: " + h +
                "\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"width\": 8";
       },
       {400},
       true},
      {"bad-json",
       [](const std::string& h) {
         return "POST /api/v1/evaluate HTTP/1.1\r\nHost: " + h +
                "\r\nContent-Type: application/json\r\nContent-Length: 12\r\nConnection: close\r\n\r\n{\"program\":[";
       },
       {400},
       false},
      {"invalid-utf8",
       [](const std::string& h) {
         const std::string body = "{\"program\": \"x ^= x >> 3;\xff\xfe\"}";
         return "POST /api/v1/evaluate HTTP/1.1\r\nHost: " + h + "\r\nContent-Type: application/json\r\nContent-Length: " +
                std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
       },
       {400},
       false},
      {"deep-json",
       [](const std::string& h) {
         const std::string body = std::string(100000, '[') + std::string(100000, ']');
         return "POST /api/v1/runs HTTP/1.1\r\nHost: " + h + "\r\nContent-Type: application/json\r\nContent-Length: " +
                std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
       },
       {400, 422},
       false},
      {"oversized-body",
       [](const std::string& h) {
         const std::string body = "{\"x\": \"" + std::string(2 << 20, 'a') + "\"}";
         return "POST /api/v1/runs/rnotarun0000/pause HTTP/1.1\r\nHost: " + h +
                "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
                "\r\nConnection: close\r\n\r\n" + body;
       },
       {413},
       true},
      {"bad-chunk",
       [](const std::string& h) {
         return "POST /api/v1/runs HTTP/1.1\r\nHost: " + h +
                "\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n";
       },
       {400},
       true},
      {"unknown-method",
       [](const std::string& h) { return "BREW /api/v1/runs HTTP/1.1\r\nHost: " + h + "\r\nConnection: close\r\n\r\n"; },
       {405, 400},
       true},
      {"unknown-query",
       [](const std::string& h) { return "GET /api/v1/runs?bogus=1 HTTP/1.1\r\nHost: " + h + "\r\nConnection: close\r\n\r\n"; },
       {400},
       false},
      {"nul-in-path",
       [](const std::string& h) { return "GET /api/v1/runs/%00 HTTP/1.1\r\nHost: " + h + "\r\nConnection: close\r\n\r\n"; },
       {400, 404},
       false},
      {"bad-percent",
       [](const std::string& h) { return "GET /api/v1/runs/%zz HTTP/1.1\r\nHost: " + h + "\r\nConnection: close\r\n\r\n"; },
       {400, 404},
       false},
      {"http-9.9",
       [](const std::string& h) { return "GET /healthz HTTP/9.9\r\nHost: " + h + "\r\n\r\n"; },
       {400},
       true},
      {"slow-headers",
       [](const std::string& h) { return "GET /healthz HTTP/1.1\r\nHost: " + h + "\r\nX-Slow: "; },
       {400},
       true},
      {"pipelined",
       [](const std::string& h) {
         return "GET /healthz HTTP/1.1\r\nHost: " + h + "\r\n\r\nGET /healthz HTTP/1.1\r\nHost: " + h +
                "\r\nConnection: close\r\n\r\n";
       },
       {200},
       false},
      {"negative-length",
       [](const std::string& h) {
         return "POST /api/v1/runs HTTP/1.1\r\nHost: " + h + "\r\nContent-Type: application/json\r\nContent-Length: -5\r\n\r\n{}";
       },
       {400},
       true},
  };
  const Case& c = pick(rng_, cases);
  const std::uint64_t epoch = target_.epoch.load();
  const int port = target_.port.load();
  const int fd = test::try_connect_loopback(port);
  if (fd < 0) {
    const bool expected = expected_failure(epoch);
    ledger_.transport_error("malformed", expected);
    if (!expected) ledger_.violation("malformed " + c.name + ": cannot connect while the daemon was up");
    return;
  }
  const auto t0 = Clock::now();
  test::send_all(fd, c.bytes("127.0.0.1:" + std::to_string(port)));
  std::string text;
  read_answer(fd, text, c.name == "slow-headers" ? 1.5 : 10);
  ::close(fd);
  const int status = status_of(text);
  if (status == 0 && text.empty()) {
    const bool expected = expected_failure(epoch);
    ledger_.transport_error("malformed", expected || c.may_close);
    if (!expected && !c.may_close) {
      ledger_.violation("malformed " + c.name + ": no answer while the daemon was up (" +
                        std::to_string(since(t0)) + " s)");
      target_.stalled = true;
    }
    return;
  }
  ledger_.record("malformed", status, since(t0));
  const auto he = text.find("\r\n\r\n");
  check_status("malformed", "raw request \"" + c.name + "\"", status, c.allowed, header_of(text, "content-type"),
               !header_of(text, "retry-after").empty(), he == std::string::npos ? text.substr(0, 200) : text.substr(he + 4, 200));
}

void Client::run() {
  struct Op {
    double weight;
    std::function<void()> fn;
  };
  const std::vector<Op> ops = {
      {10, [this] { op_list_runs(); }},
      {10, [this] { op_get_run(); }},
      {3, [this] { op_create_run(); }},
      {2, [this] { op_create_invalid(); }},
      {4, [this] { op_control("pause"); }},
      {4, [this] { op_control("resume"); }},
      {3, [this] { op_control("stop"); }},
      {1, [this] { op_delete(); }},
      {8, [this] { op_pool(); }},
      {6, [this] { op_best(); }},
      {5, [this] { op_history(); }},
      {8, [this] { op_hall_of_fame(); }},
      {4, [this] { op_function(); }},
      {4, [this] { op_evaluate(true); }},
      {4, [this] { op_evaluate(false); }},
      {3, [this] { op_export_get(); }},
      {2, [this] { op_export_post(); }},
      {3, [this] { op_events(); }},
      {3, [this] { op_malformed(); }},
      {3, [this] { op_simple("healthz", "/healthz"); }},
      {2, [this] { op_simple("metrics", "/metrics"); }},
  };
  std::vector<double> weights;
  for (const auto& o : ops) weights.push_back(o.weight);
  std::discrete_distribution<std::size_t> choose(weights.begin(), weights.end());
  while (!target_.done.load()) {
    if (!target_.up.load() || target_.held.load()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      continue;
    }
    const std::size_t k = choose(rng_);
    {
      std::shared_lock lk(target_.gate);
      if (target_.done.load()) break;
      ops[k].fn();
    }
    // Think time: real clients pause between requests (and the machine has 2 cores).
    std::this_thread::sleep_for(std::chrono::milliseconds(uniform(rng_, 0, 40)));
  }
}

}  // namespace mixforge::chaos
