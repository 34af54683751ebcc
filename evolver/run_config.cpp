#include "evolver/run_config.hpp"

#include <nlohmann/json.hpp>
#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validation_results.hpp>
#include <valijson/validator.hpp>

#include <algorithm>
#include <memory>
#include <thread>

namespace mixforge::evolver {
namespace {

std::string kinds_list() {
  std::string s;
  for (int k = 0; k < step_kind_count; ++k) {
    if (k) s += ", ";
    s += kind_name(static_cast<StepKind>(k));
  }
  return s;
}

// valijson's context is ["<root>", "[\"early_reject\"]", "[\"margin\"]"] or "[2]".
std::string field_path(const std::vector<std::string>& context) {
  std::string path;
  for (const std::string& c : context) {
    if (c == "<root>") continue;
    std::string part = c;
    if (part.size() >= 2 && part.front() == '[' && part.back() == ']') part = part.substr(1, part.size() - 2);
    const bool quoted = part.size() >= 2 && part.front() == '"' && part.back() == '"';
    if (quoted) part = part.substr(1, part.size() - 2);
    const bool index = !part.empty() && std::all_of(part.begin(), part.end(), ::isdigit) && !quoted;
    if (index)
      path += "[" + part + "]";
    else
      path += (path.empty() ? "" : ".") + part;
  }
  return path.empty() ? "(root)" : path;
}

const valijson::Schema& compiled_schema() {
  static const std::unique_ptr<valijson::Schema> schema = [] {
    auto s = std::make_unique<valijson::Schema>();
    const nlohmann::json doc = nlohmann::json::parse(run_config_schema());
    valijson::SchemaParser parser;
    valijson::adapters::NlohmannJsonAdapter adapter(doc);
    parser.populateSchema(adapter, *s);
    return s;
  }();
  return *schema;
}

StepKind kind_of(const nlohmann::json& v, const std::string& path) {
  auto k = kind_from_name(v.is_string() ? v.get<std::string>() : std::string());
  if (!k) throw ConfigError(path, "unknown step kind (expected one of " + kinds_list() + ")");
  return *k;
}

template <class T>
void take(const nlohmann::json& j, const char* key, T& out) {
  if (j.contains(key) && !j[key].is_null()) out = j[key].get<T>();
}

}  // namespace

std::vector<StepKind> RunConfig::kinds() const {
  if (!allowed_kinds.empty()) return allowed_kinds;
  std::vector<StepKind> all;
  for (int k = 0; k < step_kind_count; ++k) all.push_back(static_cast<StepKind>(k));
  return all;
}

unsigned RunConfig::worker_threads() const {
  if (threads) return threads;
  return std::max(1u, std::thread::hardware_concurrency());
}

RunConfig run_config_from_json(const nlohmann::json& j) {
  {
    valijson::Validator validator;
    valijson::ValidationResults results;
    valijson::adapters::NlohmannJsonAdapter target(j);
    if (!validator.validate(compiled_schema(), target, &results)) {
      // The deepest error is the specific one; the shallower ones only say "in property x".
      valijson::ValidationResults::Error best;
      std::size_t depth = 0;
      valijson::ValidationResults::Error e;
      while (results.popError(e))
        if (e.context.size() > depth) {
          depth = e.context.size();
          best = e;
        }
      throw ConfigError(field_path(best.context), best.description);
    }
  }
  RunConfig c;
  take(j, "name", c.name);
  take(j, "width", c.width);
  take(j, "max_steps", c.max_steps);
  take(j, "min_steps", c.min_steps);
  if (j.contains("allowed_kinds"))
    for (std::size_t i = 0; i < j["allowed_kinds"].size(); ++i)
      c.allowed_kinds.push_back(kind_of(j["allowed_kinds"][i], "allowed_kinds[" + std::to_string(i) + "]"));
  if (j.contains("kind_sequence") && !j["kind_sequence"].is_null()) {
    std::vector<StepKind> seq;
    for (std::size_t i = 0; i < j["kind_sequence"].size(); ++i)
      seq.push_back(kind_of(j["kind_sequence"][i], "kind_sequence[" + std::to_string(i) + "]"));
    c.kind_sequence = std::move(seq);
  }
  if (j.contains("kind_weights"))
    for (auto it = j["kind_weights"].begin(); it != j["kind_weights"].end(); ++it)
      c.kind_weights[static_cast<int>(kind_of(it.key(), "kind_weights." + it.key()))] = it.value().get<double>();
  take(j, "pool_size", c.pool_size);
  if (j.contains("mutation")) {
    const auto& m = j["mutation"];
    take(m, "constant_small", c.mutation.constant_small);
    take(m, "constant_large", c.mutation.constant_large);
    take(m, "swap", c.mutation.swap);
    take(m, "remove", c.mutation.remove);
    take(m, "insert", c.mutation.insert);
  }
  take(j, "fresh_rate", c.fresh_rate);
  take(j, "temperature", c.temperature);
  take(j, "max_child_attempts", c.max_child_attempts);
  if (j.contains("early_reject")) {
    const auto& e = j["early_reject"];
    take(e, "enabled", c.early_reject.enabled);
    take(e, "margin", c.early_reject.margin);
    take(e, "confidence", c.early_reject.confidence);
    take(e, "first_samples", c.early_reject.first_samples);
    take(e, "growth", c.early_reject.growth);
  }
  if (j.contains("precision")) {
    const auto& p = j["precision"];
    take(p, "exact_max_width", c.precision.exact_max_width);
    take(p, "initial_samples", c.precision.initial_samples);
    take(p, "max_samples", c.precision.max_samples);
    take(p, "noise_ratio", c.precision.noise_ratio);
    take(p, "leaders", c.precision.leaders);
    take(p, "leader_interval", c.precision.leader_interval);
    take(p, "exact_leaders", c.precision.exact_leaders);
    take(p, "exact_max_seconds", c.precision.exact_max_seconds);
  }
  if (j.contains("budget") && j["budget"].is_object()) {
    const auto& b = j["budget"];
    if (b.contains("seconds") && !b["seconds"].is_null()) c.budget.seconds = b["seconds"].get<double>();
    if (b.contains("tournaments") && !b["tournaments"].is_null())
      c.budget.tournaments = b["tournaments"].get<std::uint64_t>();
  }
  if (j.contains("seed")) {
    // Checked here: the schema validator reads integers as signed 64-bit.
    if (!j["seed"].is_number_unsigned()) throw ConfigError("seed", "must be an integer 0 .. 2^64-1");
    c.seed = j["seed"].get<std::uint64_t>();
  }
  take(j, "threads", c.threads);

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
      c.min_steps = std::min(c.min_steps, n);
      c.max_steps = std::max(c.max_steps, n);
    }
  }
  if (c.width == 1) {
    auto uses_shift = [](const std::vector<StepKind>& ks) {
      return std::any_of(ks.begin(), ks.end(), takes_shift);
    };
    if (c.kind_sequence && uses_shift(*c.kind_sequence))
      throw ConfigError("kind_sequence", "shift and rotate steps do not exist at width 1");
    const auto ks = c.kinds();
    if (std::all_of(ks.begin(), ks.end(), takes_shift))
      throw ConfigError("allowed_kinds", "only shift kinds allowed, and none exists at width 1");
  }
  if (c.precision.initial_samples > c.precision.max_samples)
    throw ConfigError("precision.initial_samples", "exceeds precision.max_samples");
  const double wsum = c.mutation.constant_small + c.mutation.constant_large + c.mutation.swap +
                      c.mutation.remove + c.mutation.insert;
  if (!(wsum > 0)) throw ConfigError("mutation", "at least one mutation weight must be positive");
  {
    double usable = 0;
    for (StepKind k : c.kinds()) usable += c.kind_weights[static_cast<int>(k)];
    if (!(usable > 0)) throw ConfigError("kind_weights", "every allowed kind has weight 0");
  }
  if (c.kind_sequence && !(c.mutation.constant_small + c.mutation.constant_large > 0))
    throw ConfigError("mutation", "a kind_sequence run changes only constants; give constant_small or "
                                  "constant_large a positive weight");
  return c;
}

nlohmann::json to_json(const Budget& b) {
  nlohmann::json j = nlohmann::json::object();
  if (b.seconds) j["seconds"] = *b.seconds;
  if (b.tournaments) j["tournaments"] = *b.tournaments;
  return j;
}

nlohmann::json to_json(const RunConfig& c) {
  nlohmann::json kinds = nlohmann::json::array();
  for (StepKind k : c.kinds()) kinds.push_back(std::string(kind_name(k)));
  nlohmann::json j = {
      {"name", c.name},
      {"width", c.width},
      {"max_steps", c.max_steps},
      {"min_steps", c.min_steps},
      {"allowed_kinds", kinds},
      {"kind_weights", [&] {
         nlohmann::json w = nlohmann::json::object();
         for (int k = 0; k < step_kind_count; ++k)
           w[std::string(kind_name(static_cast<StepKind>(k)))] = c.kind_weights[k];
         return w;
       }()},
      {"pool_size", c.pool_size},
      {"mutation",
       {{"constant_small", c.mutation.constant_small},
        {"constant_large", c.mutation.constant_large},
        {"swap", c.mutation.swap},
        {"remove", c.mutation.remove},
        {"insert", c.mutation.insert}}},
      {"fresh_rate", c.fresh_rate},
      {"temperature", c.temperature},
      {"max_child_attempts", c.max_child_attempts},
      {"early_reject",
       {{"enabled", c.early_reject.enabled},
        {"margin", c.early_reject.margin},
        {"confidence", c.early_reject.confidence},
        {"first_samples", c.early_reject.first_samples},
        {"growth", c.early_reject.growth}}},
      {"precision",
       {{"exact_max_width", c.precision.exact_max_width},
        {"initial_samples", c.precision.initial_samples},
        {"max_samples", c.precision.max_samples},
        {"noise_ratio", c.precision.noise_ratio},
        {"leaders", c.precision.leaders},
        {"leader_interval", c.precision.leader_interval},
        {"exact_leaders", c.precision.exact_leaders},
        {"exact_max_seconds", c.precision.exact_max_seconds}}},
      {"budget", to_json(c.budget)},
      {"seed", c.seed},
      {"threads", c.threads},
  };
  if (c.kind_sequence) {
    nlohmann::json seq = nlohmann::json::array();
    for (StepKind k : *c.kind_sequence) seq.push_back(std::string(kind_name(k)));
    j["kind_sequence"] = seq;
  }
  return j;
}

}  // namespace mixforge::evolver
