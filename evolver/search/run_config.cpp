#include "evolver/search/run_config.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <functional>
#include <memory>
#include <optional>
#include <string_view>
#include <thread>

#include "evolver/search/climb.hpp"
#include "mixer/text_form.hpp"
#include "schema/json_schema.hpp"

namespace mixforge::evolver {
namespace {

std::string kinds_list() {
  std::string s;
  for (int k = 0; k < mixer::step_kind_count; ++k) {
    if (k) s += ", ";
    s += mixer::kind_name(static_cast<mixer::StepKind>(k));
  }
  return s;
}

const schema::JsonSchema& compiled_schema() {
  static const schema::JsonSchema schema(nlohmann::json::parse(run_config_schema()));
  return schema;
}

mixer::StepKind kind_of(const nlohmann::json& v, const std::string& path) {
  auto k = mixer::kind_from_name(v.is_string() ? v.get<std::string>() : std::string());
  if (!k) throw ConfigError(path, "unknown step kind (expected one of " + kinds_list() + ")");
  return *k;
}

// One JSON field of the configuration: where it is, and how it is read into and written
// from a RunConfig. The table below drives both directions; the schema (validated first)
// guarantees types and bounds, so reads only convert.
struct Field {
  const char* path;  // "early_reject.margin"
  std::function<void(const nlohmann::json& value, RunConfig& c, const std::string& path)> read;
  std::function<std::optional<nlohmann::json>(const RunConfig& c)> write;  // nullopt: omitted
};

template <class T>
Field plain(const char* path, T RunConfig::*member) {
  return {path, [member](const nlohmann::json& v, RunConfig& c, const std::string&) { c.*member = v.get<T>(); },
          [member](const RunConfig& c) { return std::optional<nlohmann::json>(c.*member); }};
}

template <class S, class T>
Field nested(const char* path, S RunConfig::*outer, T S::*inner) {
  return {path,
          [outer, inner](const nlohmann::json& v, RunConfig& c, const std::string&) { (c.*outer).*inner = v.get<T>(); },
          [outer, inner](const RunConfig& c) { return std::optional<nlohmann::json>((c.*outer).*inner); }};
}

template <class T>
Field optional_budget(const char* path, std::optional<T> Budget::*member) {
  return {path, [member](const nlohmann::json& v, RunConfig& c, const std::string&) { c.budget.*member = v.get<T>(); },
          [member](const RunConfig& c) {
            const auto& b = c.budget.*member;
            return b ? std::optional<nlohmann::json>(*b) : std::nullopt;
          }};
}

template <class T>
Field migration_field(const char* path, T MigrationConfig::*member) {
  return {path,
          [member](const nlohmann::json& v, RunConfig& c, const std::string&) {
            if (!c.migration) c.migration.emplace();
            (*c.migration).*member = v.get<T>();
          },
          [member](const RunConfig& c) {
            return c.migration ? std::optional<nlohmann::json>((*c.migration).*member) : std::nullopt;
          }};
}

nlohmann::json kind_names(const std::vector<mixer::StepKind>& kinds) {
  nlohmann::json a = nlohmann::json::array();
  for (mixer::StepKind k : kinds) a.push_back(std::string(mixer::kind_name(k)));
  return a;
}

std::vector<mixer::StepKind> kinds_of(const nlohmann::json& v, const std::string& path) {
  std::vector<mixer::StepKind> out;
  for (std::size_t i = 0; i < v.size(); ++i) out.push_back(kind_of(v[i], path + "[" + std::to_string(i) + "]"));
  return out;
}

const std::vector<Field>& fields() {
  static const std::vector<Field> table = {
      plain("name", &RunConfig::name),
      plain("width", &RunConfig::width),
      plain("max_steps", &RunConfig::max_steps),
      plain("min_steps", &RunConfig::min_steps),
      {"allowed_kinds",
       [](const nlohmann::json& v, RunConfig& c, const std::string& path) { c.allowed_kinds = kinds_of(v, path); },
       [](const RunConfig& c) { return std::optional<nlohmann::json>(kind_names(c.kinds())); }},
      {"kind_sequence",
       [](const nlohmann::json& v, RunConfig& c, const std::string& path) { c.kind_sequence = kinds_of(v, path); },
       [](const RunConfig& c) {
         return c.kind_sequence ? std::optional<nlohmann::json>(kind_names(*c.kind_sequence)) : std::nullopt;
       }},
      {"seed_programs",
       [](const nlohmann::json& v, RunConfig& c, const std::string& path) {
         // Read after width (the table's order): a text without a mask is at the run's width.
         for (std::size_t i = 0; i < v.size(); ++i) {
           const std::string field = path + "[" + std::to_string(i) + "]";
           try {
             c.seed_programs.push_back(mixer::parse_program(v[i].get<std::string>(), mixer::ParseOptions{c.width}));
           } catch (const mixer::ParseError& e) {
             throw ConfigError(field, "program text at line " + std::to_string(e.line()) + ", column " +
                                          std::to_string(e.column()) + ": " + e.message());
           }
         }
       },
       [](const RunConfig& c) {
         if (c.seed_programs.empty()) return std::optional<nlohmann::json>();
         nlohmann::json a = nlohmann::json::array();
         for (const mixer::Program& p : c.seed_programs) a.push_back(mixer::format_program(p));
         return std::optional<nlohmann::json>(a);
       }},
      {"kind_weights",
       [](const nlohmann::json& v, RunConfig& c, const std::string& path) {
         for (auto it = v.begin(); it != v.end(); ++it)
           c.kind_weights[static_cast<int>(kind_of(it.key(), path + "." + it.key()))] = it.value().get<double>();
       },
       [](const RunConfig& c) {
         nlohmann::json w = nlohmann::json::object();
         for (int k = 0; k < mixer::step_kind_count; ++k)
           w[std::string(mixer::kind_name(static_cast<mixer::StepKind>(k)))] = c.kind_weights[k];
         return std::optional<nlohmann::json>(w);
       }},
      plain("pool_size", &RunConfig::pool_size),
      nested("mutation.constant_small", &RunConfig::mutation, &MutationWeights::constant_small),
      nested("mutation.constant_large", &RunConfig::mutation, &MutationWeights::constant_large),
      nested("mutation.swap", &RunConfig::mutation, &MutationWeights::swap),
      nested("mutation.remove", &RunConfig::mutation, &MutationWeights::remove),
      nested("mutation.insert", &RunConfig::mutation, &MutationWeights::insert),
      plain("fresh_rate", &RunConfig::fresh_rate),
      plain("temperature", &RunConfig::temperature),
      plain("max_child_attempts", &RunConfig::max_child_attempts),
      nested("early_reject.enabled", &RunConfig::early_reject, &EarlyReject::enabled),
      nested("early_reject.margin", &RunConfig::early_reject, &EarlyReject::margin),
      nested("early_reject.confidence", &RunConfig::early_reject, &EarlyReject::confidence),
      nested("early_reject.first_samples", &RunConfig::early_reject, &EarlyReject::first_samples),
      nested("early_reject.growth", &RunConfig::early_reject, &EarlyReject::growth),
      nested("precision.exact_max_width", &RunConfig::precision, &Precision::exact_max_width),
      nested("precision.initial_samples", &RunConfig::precision, &Precision::initial_samples),
      nested("precision.max_samples", &RunConfig::precision, &Precision::max_samples),
      nested("precision.noise_ratio", &RunConfig::precision, &Precision::noise_ratio),
      nested("precision.leaders", &RunConfig::precision, &Precision::leaders),
      nested("precision.leader_interval", &RunConfig::precision, &Precision::leader_interval),
      nested("precision.exact_leaders", &RunConfig::precision, &Precision::exact_leaders),
      nested("precision.exact_max_seconds", &RunConfig::precision, &Precision::exact_max_seconds),
      nested("local_search.enabled", &RunConfig::local_search, &LocalSearchConfig::enabled),
      nested("local_search.first_samples", &RunConfig::local_search, &LocalSearchConfig::first_samples),
      nested("local_search.max_samples", &RunConfig::local_search, &LocalSearchConfig::max_samples),
      nested("local_search.z", &RunConfig::local_search, &LocalSearchConfig::z),
      nested("local_search.exact_priority", &RunConfig::local_search, &LocalSearchConfig::exact_priority),
      nested("local_search.pairs", &RunConfig::local_search, &LocalSearchConfig::pairs),
      nested("local_search.decisive_z", &RunConfig::local_search, &LocalSearchConfig::decisive_z),
      nested("local_search.iterated", &RunConfig::local_search, &LocalSearchConfig::iterated),
      nested("local_search.kick_moves", &RunConfig::local_search, &LocalSearchConfig::kick_moves),
      nested("local_search.kick_max_moves", &RunConfig::local_search, &LocalSearchConfig::kick_max_moves),
      nested("local_search.leader_starts", &RunConfig::local_search, &LocalSearchConfig::leader_starts),
      nested("memetic.local_search_rate", &RunConfig::memetic, &MemeticConfig::local_search_rate),
      nested("memetic.max_moves", &RunConfig::memetic, &MemeticConfig::max_moves),
      nested("memetic.crossover_rate", &RunConfig::memetic, &MemeticConfig::crossover_rate),
      nested("memetic.species_rate", &RunConfig::memetic, &MemeticConfig::species_rate),
      nested("memetic.shape_share", &RunConfig::memetic, &MemeticConfig::shape_share),
      nested("memetic.score_cache", &RunConfig::memetic, &MemeticConfig::score_cache),
      nested("restart.stagnation_seconds", &RunConfig::restart, &RestartConfig::stagnation_seconds),
      nested("restart.stagnation_tournaments", &RunConfig::restart, &RestartConfig::stagnation_tournaments),
      nested("restart.fraction", &RunConfig::restart, &RestartConfig::fraction),
      nested("restart.min_gain", &RunConfig::restart, &RestartConfig::min_gain),
      nested("restart.patience", &RunConfig::restart, &RestartConfig::patience),
      nested("restart.keep_leaders", &RunConfig::restart, &RestartConfig::keep_leaders),
      nested("restart.trap_tournaments", &RunConfig::restart, &RestartConfig::trap_tournaments),
      nested("objective.bic_weight", &RunConfig::objective, &ObjectiveConfig::bic_weight),
      nested("objective.higher_order_weight", &RunConfig::objective, &ObjectiveConfig::higher_order_weight),
      nested("objective.samples", &RunConfig::objective, &ObjectiveConfig::samples),
      nested("objective.rrc_weight", &RunConfig::objective, &ObjectiveConfig::rrc_weight),
      nested("objective.rrc_cap_log2", &RunConfig::objective, &ObjectiveConfig::rrc_cap_log2),
      nested("objective.rrc_chi2_bound", &RunConfig::objective, &ObjectiveConfig::rrc_chi2_bound),
      optional_budget("budget.seconds", &Budget::seconds),
      optional_budget("budget.tournaments", &Budget::tournaments),
      migration_field("migration.interval", &MigrationConfig::interval),
      migration_field("migration.migrants", &MigrationConfig::migrants),
      {"migration.topology",
       [](const nlohmann::json& v, RunConfig& c, const std::string&) {
         if (!c.migration) c.migration.emplace();
         c.migration->random_topology = v.get<std::string>() == "random";
       },
       [](const RunConfig& c) {
         return c.migration ? std::optional<nlohmann::json>(c.migration->random_topology ? "random" : "ring")
                            : std::nullopt;
       }},
      {"seed", [](const nlohmann::json& v, RunConfig& c, const std::string&) { c.seed = seed_from_json(v); },
       [](const RunConfig& c) { return std::optional<nlohmann::json>(seed_to_json(c.seed)); }},
      plain("threads", &RunConfig::threads),
  };
  return table;
}

// The value at a dotted path, or nullptr when it (or an object on the way) is missing.
const nlohmann::json* at_path(const nlohmann::json& j, const std::string& path) {
  const nlohmann::json* cur = &j;
  std::size_t i = 0;
  while (i <= path.size()) {
    std::size_t dot = path.find('.', i);
    if (dot == std::string::npos) dot = path.size();
    const std::string key = path.substr(i, dot - i);
    if (!cur->is_object() || !cur->contains(key)) return nullptr;
    cur = &(*cur)[key];
    i = dot + 1;
  }
  return cur;
}

void set_path(nlohmann::json& j, const std::string& path, nlohmann::json value) {
  nlohmann::json* cur = &j;
  std::size_t i = 0;
  for (std::size_t dot; (dot = path.find('.', i)) != std::string::npos; i = dot + 1) {
    nlohmann::json& next = (*cur)[path.substr(i, dot - i)];
    if (!next.is_object()) next = nlohmann::json::object();
    cur = &next;
  }
  (*cur)[path.substr(i)] = std::move(value);
}

}  // namespace

std::vector<mixer::StepKind> RunConfig::kinds() const {
  if (!allowed_kinds.empty()) return allowed_kinds;
  std::vector<mixer::StepKind> all;
  for (int k = 0; k < mixer::step_kind_count; ++k) all.push_back(static_cast<mixer::StepKind>(k));
  return all;
}

unsigned RunConfig::worker_threads() const {
  if (threads) return threads;
  return std::max(1u, std::thread::hardware_concurrency());
}

RunConfig run_config_from_json(const nlohmann::json& j) {
  {
    // The seed is checked by seed_from_json (an integer up to 2^53-1 or a decimal string
    // up to 2^64-1), whatever the schema's version of the rule.
    nlohmann::json checked = j;
    if (checked.is_object()) checked.erase("seed");
    const auto errors = compiled_schema().errors(checked);
    if (!errors.empty()) {
      // The deepest error is the specific one; the shallower ones only say "in property x".
      const schema::SchemaError* best = &errors.front();
      for (const auto& e : errors)
        if (e.path.size() > best->path.size()) best = &e;
      throw ConfigError(schema::dotted(best->path), best->message);
    }
  }
  RunConfig c;
  for (const Field& f : fields()) {
    const nlohmann::json* v = at_path(j, f.path);
    // null means "the default" where the schema allows it (budget); the seed, checked
    // here rather than by the schema, allows no null.
    if (!v || (v->is_null() && std::string_view(f.path) != "seed")) continue;
    try {
      f.read(*v, c, f.path);
    } catch (const ConfigError&) {
      throw;
    } catch (const std::exception& e) {
      throw ConfigError(f.path, e.what());
    }
  }

  // Rules that span fields.
  if (c.min_steps > c.max_steps)
    throw ConfigError("min_steps", "min_steps " + std::to_string(c.min_steps) + " exceeds max_steps " +
                                       std::to_string(c.max_steps));
  if (c.kind_sequence) {
    const int n = static_cast<int>(c.kind_sequence->size());
    if (n < c.min_steps || n > c.max_steps) {
      // A sequence sets the length; make min/max follow it unless they were given.
      if (j.contains("max_steps") && n > c.max_steps)
        throw ConfigError("kind_sequence", "has " + std::to_string(n) + " steps but max_steps is " +
                                               std::to_string(c.max_steps));
      if (j.contains("min_steps") && n < c.min_steps)
        throw ConfigError("kind_sequence", "has " + std::to_string(n) + " steps but min_steps is " +
                                               std::to_string(c.min_steps));
      c.min_steps = std::min(c.min_steps, n);
      c.max_steps = std::max(c.max_steps, n);
    }
  }
  if (c.kind_sequence && !c.allowed_kinds.empty())
    for (std::size_t i = 0; i < c.kind_sequence->size(); ++i)
      if (std::find(c.allowed_kinds.begin(), c.allowed_kinds.end(), (*c.kind_sequence)[i]) == c.allowed_kinds.end())
        throw ConfigError("kind_sequence[" + std::to_string(i) + "]",
                          std::string(mixer::kind_name((*c.kind_sequence)[i])) + " is not one of allowed_kinds");
  // Seed programs fit the run's shape: a given step bound or kind rule holds, one not given
  // follows them (as it follows a kind_sequence).
  for (std::size_t i = 0; i < c.seed_programs.size(); ++i) {
    const mixer::Program& p = c.seed_programs[i];
    const std::string field = "seed_programs[" + std::to_string(i) + "]";
    const int n = static_cast<int>(p.size());
    if (c.width > climb_max_width)
      throw ConfigError(field, "a seed program is polished by exact scores: the run's width must be at most " +
                                   std::to_string(climb_max_width) + ", not " + std::to_string(c.width));
    if (p.width() != c.width)
      throw ConfigError(field, "is " + std::to_string(p.width()) + " bits wide, the run " + std::to_string(c.width));
    if (n > c.max_steps) {
      if (j.contains("max_steps"))
        throw ConfigError(field, "has " + std::to_string(n) + " steps but max_steps is " + std::to_string(c.max_steps));
      c.max_steps = n;
    }
    if (n < c.min_steps) {
      if (j.contains("min_steps"))
        throw ConfigError(field, "has " + std::to_string(n) + " steps but min_steps is " + std::to_string(c.min_steps));
      c.min_steps = n;
    }
    for (std::size_t k = 0; k < p.size(); ++k) {
      const mixer::StepKind kind = p.steps()[k].kind;
      if (!c.allowed_kinds.empty() &&
          std::find(c.allowed_kinds.begin(), c.allowed_kinds.end(), kind) == c.allowed_kinds.end())
        throw ConfigError(field, "step " + std::to_string(k + 1) + " is " + std::string(mixer::kind_name(kind)) +
                                     ", not one of allowed_kinds");
    }
    if (c.kind_sequence) {
      bool same = c.kind_sequence->size() == p.size();
      for (std::size_t k = 0; same && k < p.size(); ++k) same = (*c.kind_sequence)[k] == p.steps()[k].kind;
      if (!same) throw ConfigError(field, "does not have the run's kind_sequence");
    }
  }
  if (c.width == 1) {
    auto uses_shift = [](const std::vector<mixer::StepKind>& ks) {
      return std::any_of(ks.begin(), ks.end(), mixer::takes_shift);
    };
    if (c.kind_sequence && uses_shift(*c.kind_sequence))
      throw ConfigError("kind_sequence", "shift and rotate steps do not exist at width 1");
    const auto ks = c.kinds();
    if (std::all_of(ks.begin(), ks.end(), mixer::takes_shift))
      throw ConfigError("allowed_kinds", "only shift kinds allowed, and none exists at width 1");
  }
  validate_budget(c.budget);
  // JSON cannot carry NaN or infinity, but a configuration built in code (the CLI's
  // flags) can: the schema's minimum does not catch NaN.
  for (const auto& [field, w] : {std::pair{"objective.bic_weight", c.objective.bic_weight},
                                 std::pair{"objective.higher_order_weight", c.objective.higher_order_weight},
                                 std::pair{"objective.rrc_weight", c.objective.rrc_weight},
                                 std::pair{"objective.rrc_chi2_bound", c.objective.rrc_chi2_bound}})
    if (!std::isfinite(w) || w < 0)
      throw ConfigError(field, std::string("must be a finite number >= 0 (0 leaves the term out), not ") +
                                   (std::isnan(w) ? "NaN" : std::isinf(w) ? "infinite" : std::to_string(w).c_str()));
  if (c.objective.rrc_cap_log2 < 11 || c.objective.rrc_cap_log2 > 40)
    throw ConfigError("objective.rrc_cap_log2",
                      "must be from 11 to 40, not " + std::to_string(c.objective.rrc_cap_log2));
  if (c.objective.rrc_weight > 0 && c.width < 8)
    throw ConfigError("objective.rrc_weight",
                      "the RRC battery needs a width of 8 to 64 bits, not " + std::to_string(c.width));
  for (const auto& [field, r] : {std::pair{"memetic.local_search_rate", c.memetic.local_search_rate},
                                 std::pair{"memetic.crossover_rate", c.memetic.crossover_rate},
                                 std::pair{"memetic.species_rate", c.memetic.species_rate},
                                 std::pair{"memetic.shape_share", c.memetic.shape_share},
                                 std::pair{"local_search.leader_starts", c.local_search.leader_starts}})
    if (!(r >= 0 && r <= 1)) throw ConfigError(field, "must be a share from 0 to 1, not " + std::to_string(r));
  if (c.memetic.max_moves < 1) throw ConfigError("memetic.max_moves", "must be at least 1");
  if (c.local_search.kick_moves < 1) throw ConfigError("local_search.kick_moves", "must be at least 1");
  if (c.local_search.kick_max_moves < 1) throw ConfigError("local_search.kick_max_moves", "must be at least 1");
  if (!(c.memetic.shape_share > 0)) throw ConfigError("memetic.shape_share", "must be above 0 (1: no limit)");
  if (c.precision.initial_samples > c.precision.max_samples)
    throw ConfigError("precision.initial_samples", "exceeds precision.max_samples");
  if (c.local_search.first_samples > c.local_search.max_samples)
    throw ConfigError("local_search.first_samples", "exceeds local_search.max_samples");
  if (c.restart.stagnation_seconds > 0 && c.restart.stagnation_tournaments > 0)
    throw ConfigError("restart.stagnation_tournaments", "give stagnation_seconds or stagnation_tournaments, not both");
  const double wsum = c.mutation.constant_small + c.mutation.constant_large + c.mutation.swap +
                      c.mutation.remove + c.mutation.insert;
  if (!(wsum > 0)) throw ConfigError("mutation", "at least one mutation weight must be positive");
  {
    double usable = 0;
    for (mixer::StepKind k : c.kinds()) usable += c.kind_weights[static_cast<int>(k)];
    if (!(usable > 0)) throw ConfigError("kind_weights", "every allowed kind has weight 0");
  }
  if (c.kind_sequence && !(c.mutation.constant_small + c.mutation.constant_large > 0))
    throw ConfigError("mutation", "a kind_sequence run changes only constants; give constant_small or "
                                  "constant_large a positive weight");
  return c;
}

void validate_budget(const Budget& b) {
  if (b.seconds && !(std::isfinite(*b.seconds) && *b.seconds > 0))
    throw ConfigError("budget.seconds", "must be a finite number of seconds > 0, not " +
                                            (std::isnan(*b.seconds) ? std::string("NaN") : std::to_string(*b.seconds)));
  constexpr std::uint64_t most = std::numeric_limits<std::int64_t>::max();
  if (b.tournaments && (*b.tournaments < 1 || *b.tournaments > most))
    throw ConfigError("budget.tournaments", "must be 1.." + std::to_string(most) + ", not " +
                                                std::to_string(*b.tournaments));
}

nlohmann::json to_json(const Budget& b) {
  nlohmann::json j = nlohmann::json::object();
  if (b.seconds) j["seconds"] = *b.seconds;
  if (b.tournaments) j["tournaments"] = *b.tournaments;
  return j;
}

nlohmann::json to_json(const RunConfig& c) {
  nlohmann::json j = nlohmann::json::object();
  for (const Field& f : fields())
    if (auto v = f.write(c)) set_path(j, f.path, std::move(*v));
  j["budget"] = to_json(c.budget);  // {} when unset: the run goes on until stopped
  return j;
}

std::uint64_t seed_from_json(const nlohmann::json& v, const std::string& field) {
  constexpr std::uint64_t max_integer = (std::uint64_t{1} << 53) - 1;
  if (v.is_number_unsigned() || v.is_number_integer()) {
    if (v.is_number_integer() && !v.is_number_unsigned() && v.get<std::int64_t>() < 0)
      throw ConfigError(field, "must not be negative (0 .. 2^64-1)");
    const std::uint64_t s = v.get<std::uint64_t>();
    if (s > max_integer)
      throw ConfigError(field, std::to_string(s) + " is above 2^53-1 = 9007199254740991, the largest integer every "
                                                   "JSON parser reads exactly: send it as a string of decimal digits");
    return s;
  }
  if (v.is_string()) {
    const std::string& text = v.get_ref<const std::string&>();
    std::uint64_t s = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), s);
    const bool digits = !text.empty() && std::all_of(text.begin(), text.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
    if (!digits || ec != std::errc() || end != text.data() + text.size())
      throw ConfigError(field, "a string seed must be decimal digits for 0 .. 18446744073709551615 (2^64-1)");
    return s;
  }
  throw ConfigError(field, "must be an integer 0 .. 9007199254740991 or a string of decimal digits up to "
                           "18446744073709551615");
}

nlohmann::json seed_to_json(std::uint64_t seed) {
  if (seed <= (std::uint64_t{1} << 53) - 1) return seed;
  return std::to_string(seed);
}

}  // namespace mixforge::evolver
