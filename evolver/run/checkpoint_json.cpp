#include "evolver/run/checkpoint_json.hpp"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <stdexcept>
#include <string>

#include "evolver/run/run_types_json.hpp"
#include "mixer/json_form.hpp"

namespace mixforge::evolver {
namespace {

std::string hex64(std::uint64_t v) {
  char b[20];
  std::snprintf(b, sizeof b, "%016llx", static_cast<unsigned long long>(v));
  return b;
}

std::uint64_t from_hex64(const nlohmann::json& s) {
  const std::string t = s.get<std::string>();
  std::size_t used = 0;
  const std::uint64_t v = std::stoull(t, &used, 16);
  if (used != t.size() || t.size() > 16) throw std::invalid_argument("not a 64-bit hex word: " + t);
  return v;
}

// Reads j[name] with `read`; any failure names the field as "<where>.<name>", so a damaged
// row or message says where.
template <class Read>
auto read_field(const nlohmann::json& j, const std::string& where, const char* name, Read read) {
  try {
    return read(j.at(name));
  } catch (const std::exception& e) {
    throw std::invalid_argument(where + "." + name + ": " + e.what());
  }
}

}  // namespace

nlohmann::json to_json(const Member& m) {
  return {{"program", mixforge::mixer::to_json(m.program)},
          {"chi2", m.estimate.chi2},
          {"stderr", m.estimate.stderr_},
          {"samples", m.estimate.samples},
          {"exact", m.estimate.exact},
          {"born", m.born}};
}

Member member_from_json(const nlohmann::json& j) {
  Member m;
  m.program = mixer::program_from_json(j.at("program"));
  m.hash = m.program.hash();
  m.estimate = {j.at("chi2").get<double>(), j.at("stderr").get<double>(), j.at("samples").get<std::uint64_t>(),
                j.at("exact").get<bool>()};
  m.born = j.value("born", std::uint64_t{0});
  return m;
}

nlohmann::json rng_states_to_json(const std::vector<Rng::State>& states) {
  nlohmann::json a = nlohmann::json::array();
  for (const auto& s : states) a.push_back({hex64(s[0]), hex64(s[1]), hex64(s[2]), hex64(s[3])});
  return a;
}

std::vector<Rng::State> rng_states_from_json(const nlohmann::json& j) {
  std::vector<Rng::State> out;
  for (const auto& s : j) {
    if (!s.is_array() || s.size() != 4) throw std::invalid_argument("an RNG state is four hex words");
    out.push_back({from_hex64(s[0]), from_hex64(s[1]), from_hex64(s[2]), from_hex64(s[3])});
  }
  return out;
}

namespace {
nlohmann::json clock_to_json(const ClockState& s) {
  return {{"pool_start", s.pool_start},
          {"last_progress", s.last_progress},
          {"wait_from", s.wait_from},
          {"progress_rank", s.progress_rank ? nlohmann::json(*s.progress_rank) : nlohmann::json(nullptr)}};
}

ClockState clock_from_json(const nlohmann::json& j, const std::string& where) {
  auto number = [&](const char* name) {
    return read_field(j, where, name, [](const nlohmann::json& v) {
      if (!v.is_number()) throw std::invalid_argument("a number is needed");
      return v.get<double>();
    });
  };
  if (!j.is_object()) throw std::invalid_argument(where + ": an object is needed");
  ClockState s;
  s.pool_start = number("pool_start");
  s.last_progress = number("last_progress");
  s.wait_from = number("wait_from");
  // null: no progress yet (a rank the JSON could not hold, an infinite one, reads the same).
  if (j.contains("progress_rank") && !j["progress_rank"].is_null()) s.progress_rank = number("progress_rank");
  return s;
}
}  // namespace

nlohmann::json clocks_to_json(const Checkpoint& c) {
  if (!c.stagnation_clock || !c.trap_clock) return nullptr;
  return {{"stagnation", clock_to_json(*c.stagnation_clock)}, {"trap", clock_to_json(*c.trap_clock)}};
}

void clocks_from_json(const nlohmann::json& j, Checkpoint& c) {
  c.stagnation_clock.reset();
  c.trap_clock.reset();
  if (j.is_null()) return;
  if (!j.is_object() || !j.contains("stagnation") || !j.contains("trap"))
    throw std::invalid_argument("clocks: an object with \"stagnation\" and \"trap\" is needed");
  c.stagnation_clock = clock_from_json(j["stagnation"], "clocks.stagnation");
  c.trap_clock = clock_from_json(j["trap"], "clocks.trap");
}

nlohmann::json to_json(const SessionBudget& s) {
  return {{"budget", to_json(s.budget)},
          {"start_tournaments", s.start_tournaments},
          {"start_elapsed_s", s.start_elapsed_s}};
}

SessionBudget session_budget_from_json(const nlohmann::json& j) {
  auto field = [&](const char* name, auto read) { return read_field(j, "session", name, read); };
  SessionBudget s;
  s.budget = field("budget", [](const nlohmann::json& b) {
    Budget out;
    if (!b.is_object()) throw std::invalid_argument("an object is needed");
    if (b.contains("seconds")) out.seconds = b["seconds"].get<double>();
    if (b.contains("tournaments")) out.tournaments = b["tournaments"].get<std::uint64_t>();
    return out;
  });
  s.start_tournaments = field("start_tournaments", [](const nlohmann::json& v) { return v.get<std::uint64_t>(); });
  s.start_elapsed_s = field("start_elapsed_s", [](const nlohmann::json& v) { return v.get<double>(); });
  return s;
}

nlohmann::json to_json(const Checkpoint& c) {
  nlohmann::json pool = nlohmann::json::array();
  for (const Member& m : c.pool) pool.push_back(to_json(m));
  return {{"pool", std::move(pool)},
          {"counters", to_json(c.counters)},
          {"current_samples", c.current_samples},
          {"next_leader_at", c.next_leader_at},
          {"rngs", rng_states_to_json(c.rngs)},
          {"best", c.best ? to_json(*c.best) : nlohmann::json(nullptr)},
          {"sessions", c.sessions},
          {"clocks", clocks_to_json(c)}};
}

Checkpoint checkpoint_from_json(const nlohmann::json& j) {
  auto field = [&](const char* name, auto read) { return read_field(j, "checkpoint", name, read); };
  Checkpoint c;
  c.pool = field("pool", [](const nlohmann::json& a) {
    std::vector<Member> pool;
    for (const auto& m : a) pool.push_back(member_from_json(m));
    return pool;
  });
  c.counters = field("counters", [](const nlohmann::json& v) { return counters_from_json(v); });
  c.current_samples = field("current_samples", [](const nlohmann::json& v) { return v.get<std::uint64_t>(); });
  c.next_leader_at = field("next_leader_at", [](const nlohmann::json& v) { return v.get<std::uint64_t>(); });
  c.rngs = field("rngs", [](const nlohmann::json& v) { return rng_states_from_json(v); });
  c.best = field("best", [](const nlohmann::json& v) -> std::optional<Member> {
    if (v.is_null()) return std::nullopt;
    return member_from_json(v);
  });
  c.sessions = field("sessions", [](const nlohmann::json& v) { return v.get<std::uint64_t>(); });
  if (j.contains("clocks")) {
    try {
      clocks_from_json(j["clocks"], c);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(std::string("checkpoint.") + e.what());
    }
  }
  return c;
}

}  // namespace mixforge::evolver
