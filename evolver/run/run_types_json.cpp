#include "evolver/run/run_types_json.hpp"

#include <nlohmann/json.hpp>

#include "mixer/json_form.hpp"
#include "mixer/text_form.hpp"

namespace mixforge::evolver {

nlohmann::json to_json(const ScoredFunction& f) {
  nlohmann::json j = {
      {"id", f.id},
      {"text", f.text},
      {"short", mixer::format_short(f.program)},
      {"program", mixforge::mixer::to_json(f.program)},
      {"width", f.width},
      {"steps", f.steps},
      {"chi2", f.chi2},
      {"chi2_stderr", f.chi2_stderr},
      {"samples", f.samples},
      {"exact", f.exact},
      {"chi2_exact", f.chi2_exact ? nlohmann::json(*f.chi2_exact) : nlohmann::json(nullptr)},
      {"bias", f.bias},
      {"born", f.born},
  };
  // Only where the run has an objective (and the terms are known): its total is the rank.
  if (f.objective) j["objective"] = to_json(*f.objective, f.rank() - f.objective->penalty);
  return j;
}

nlohmann::json to_json(const RunCounters& c) {
  return {{"tournaments", c.tournaments},
          {"removals", c.removals},
          {"scored", c.scored},
          {"early_rejects", c.early_rejects},
          {"samples", c.samples},
          {"samples_saved", c.samples_saved},
          {"exact_scored", c.exact_scored},
          {"local_neighbours", c.local_neighbours},
          {"local_improvements", c.local_improvements},
          {"restarts", c.restarts},
          {"elapsed_s", c.elapsed_s}};
}

RunCounters counters_from_json(const nlohmann::json& j) {
  RunCounters c;
  c.tournaments = j.value("tournaments", std::uint64_t{0});
  c.removals = j.value("removals", std::uint64_t{0});
  c.scored = j.value("scored", std::uint64_t{0});
  c.early_rejects = j.value("early_rejects", std::uint64_t{0});
  c.samples = j.value("samples", std::uint64_t{0});
  c.samples_saved = j.value("samples_saved", std::uint64_t{0});
  c.exact_scored = j.value("exact_scored", std::uint64_t{0});
  c.local_neighbours = j.value("local_neighbours", std::uint64_t{0});
  c.local_improvements = j.value("local_improvements", std::uint64_t{0});
  c.restarts = j.value("restarts", std::uint64_t{0});
  c.elapsed_s = j.value("elapsed_s", 0.0);
  return c;
}

nlohmann::json to_json(const IslandStatus& s) {
  return {{"rank", s.rank},
          {"host", s.host},
          {"counters", to_json(s.counters)},
          {"best", s.best ? to_json(*s.best) : nlohmann::json(nullptr)},
          {"migrants_sent", s.migrants_sent},
          {"migrants_received", s.migrants_received},
          {"migrants_accepted", s.migrants_accepted},
          {"bests_reported", s.bests_reported},
          {"finished", s.finished},
          {"lost", s.lost},
          {"checkpoint_tournaments", s.checkpoint_tournaments}};
}

ScoredFunction scored_function_from_json(const nlohmann::json& b) {
  ScoredFunction f;
  f.program = mixer::program_from_json(b.at("program"));
  f.id = f.program.id();
  f.text = b.value("text", std::string());
  f.width = f.program.width();
  f.steps = static_cast<int>(f.program.size());
  f.chi2 = b.at("chi2").get<double>();
  f.chi2_stderr = b.value("chi2_stderr", 0.0);
  f.samples = b.value("samples", std::uint64_t{0});
  f.exact = b.value("exact", false);
  if (b.contains("chi2_exact") && !b["chi2_exact"].is_null()) f.chi2_exact = b["chi2_exact"].get<double>();
  f.bias = b.value("bias", 0.0);
  f.born = b.value("born", std::uint64_t{0});
  if (b.contains("objective") && !b["objective"].is_null()) f.objective = objective_terms_from_json(b["objective"]);
  return f;
}

IslandStatus island_status_from_json(const nlohmann::json& j) {
  IslandStatus s;
  s.rank = j.at("rank").get<int>();
  s.host = j.value("host", std::string());
  s.counters = counters_from_json(j.at("counters"));
  if (j.contains("best") && !j["best"].is_null()) s.best = scored_function_from_json(j["best"]);
  s.migrants_sent = j.value("migrants_sent", std::uint64_t{0});
  s.migrants_received = j.value("migrants_received", std::uint64_t{0});
  s.migrants_accepted = j.value("migrants_accepted", std::uint64_t{0});
  s.bests_reported = j.value("bests_reported", std::uint64_t{0});
  s.finished = j.value("finished", false);
  s.lost = j.value("lost", false);
  s.checkpoint_tournaments = j.value("checkpoint_tournaments", std::uint64_t{0});
  return s;
}

nlohmann::json to_json(const RunSummary& s) {
  nlohmann::json j = {{"id", s.id},
                      {"name", s.name},
                      {"state", std::string(state_name(s.state))},
                      {"config", to_json(s.config)},
                      {"created_at", s.created_at},
                      {"updated_at", s.updated_at},
                      {"counters", to_json(s.counters)},
                      {"current_samples", s.current_samples},
                      {"best", s.best ? to_json(*s.best) : nlohmann::json(nullptr)},
                      {"error", s.error}};
  if (!s.islands.empty()) {
    j["islands"] = nlohmann::json::array();
    for (const IslandStatus& i : s.islands) j["islands"].push_back(to_json(i));
  }
  return j;
}

nlohmann::json to_json(const ClimbStatus& c) {
  nlohmann::json centre = nullptr;
  if (c.centre)
    centre = {{"text", mixer::format_program(*c.centre)},
              {"short", mixer::format_short(*c.centre)},
              {"id", c.centre->id()},
              {"chi2_exact", c.chi2_exact}};
  return {{"seed", c.seed},
          {"start", mixer::format_program(c.start)},
          {"width", c.start.width()},
          {"centre", std::move(centre)},
          {"moves", c.moves},
          {"scored", c.scored},
          {"phase", c.pairs ? "pairs" : "singles"},
          {"position", c.position},
          {"neighbourhood", c.neighbourhood},
          {"done", c.done}};
}

ClimbStatus climb_status_from_json(const nlohmann::json& j) {
  ClimbStatus c;
  const int width = j.at("width").get<int>();
  c.seed = j.at("seed").get<std::size_t>();
  c.start = mixer::parse_program(j.at("start").get<std::string>(), mixer::ParseOptions{width});
  if (!j.at("centre").is_null()) {
    c.centre = mixer::parse_program(j["centre"].at("text").get<std::string>(), mixer::ParseOptions{width});
    c.chi2_exact = j["centre"].at("chi2_exact").get<double>();
  }
  c.moves = j.at("moves").get<std::uint64_t>();
  c.scored = j.at("scored").get<std::uint64_t>();
  c.pairs = j.at("phase").get<std::string>() == "pairs";
  c.position = j.at("position").get<std::uint64_t>();
  c.neighbourhood = j.at("neighbourhood").get<std::uint64_t>();
  c.done = j.at("done").get<bool>();
  return c;
}

nlohmann::json to_json(const Progress& p) {
  nlohmann::json j = {{"run_id", p.run_id},
                      {"state", std::string(state_name(p.state))},
                      {"counters", to_json(p.counters)},
                      {"tournaments_per_s", p.tournaments_per_s},
                      {"scored_per_s", p.scored_per_s},
                      {"early_reject_rate", p.early_reject_rate},
                      {"current_samples", p.current_samples},
                      {"pool_size", p.pool_size},
                      {"checkpoint_pause_max_s", p.checkpoint_pause_max_s},
                      {"best", p.best ? to_json(*p.best) : nlohmann::json(nullptr)}};
  if (!p.climbs.empty()) {
    j["climbs"] = nlohmann::json::array();
    for (const ClimbStatus& c : p.climbs) j["climbs"].push_back(to_json(c));
  }
  return j;
}

nlohmann::json to_json(const HistoryPoint& h) {
  return {{"elapsed_s", h.elapsed_s},
          {"tournaments", h.tournaments},
          {"scored", h.scored},
          {"best_chi2", h.best_chi2},
          {"best_exact", h.best_exact}};
}

nlohmann::json to_json(const HallOfFameEntry& e) {
  nlohmann::json j = to_json(e.function);
  j["run_id"] = e.run_id;
  j["elapsed_s"] = e.elapsed_s;
  j["tournaments"] = e.tournaments;
  j["recorded_at"] = e.recorded_at;
  return j;
}

nlohmann::json to_json(const PoolPage& p) {
  nlohmann::json items = nlohmann::json::array();
  for (const auto& f : p.items) items.push_back(to_json(f));
  return {{"total", p.total}, {"items", std::move(items)}};
}

nlohmann::json to_json(const RunEvent& e) {
  const char* type = e.type == RunEvent::Type::progress   ? "progress"
                     : e.type == RunEvent::Type::new_best ? "new_best"
                     : e.type == RunEvent::Type::deleted  ? "deleted"
                                                          : "state";
  nlohmann::json j = {{"type", type}, {"run_id", e.run_id}, {"progress", to_json(e.progress)}};
  if (e.best) j["best"] = to_json(*e.best);
  if (e.type == RunEvent::Type::state) j["state"] = std::string(state_name(e.state));
  return j;
}

}  // namespace mixforge::evolver
