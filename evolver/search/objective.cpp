#include "evolver/search/objective.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "avalanche/stats/bit_independence.hpp"
#include "avalanche/stats/higher_order_avalanche.hpp"
#include "avalanche/quality/rrc/rrc_battery.hpp"
#include "evolver/search/rng.hpp"

namespace mixforge::evolver {

ObjectiveTerms objective_terms(const avalanche::BatchFunction& f, int width, const ObjectiveConfig& config,
                               std::uint64_t seed, const std::atomic<bool>* cancel, std::optional<double> chi2) {
  if (config.samples == 0) throw std::invalid_argument("objective terms need at least one sample");
  ObjectiveTerms t;
  t.samples = config.samples;
  if (config.bic_weight > 0 && width >= 2) {
    const avalanche::BitIndependence b = avalanche::bit_independence(f, width, config.samples, seed, cancel);
    const double N = static_cast<double>(b.samples_per_bit), cells = static_cast<double>(b.cells);
    const double scale = N * (width - 1);  // S / scale = sum(c^2) / (n - 1)
    t.bic_exact = b.exact;
    t.bic = b.exact ? b.chi2 / scale : (b.chi2 - cells) / scale;
    t.bic_stderr = b.exact ? 0 : std::sqrt(2 * cells) / scale;
  }
  if (config.higher_order_weight > 0 && width >= 2) {
    double var = 0;
    for (const avalanche::FlipDistance& d :
         avalanche::higher_order_avalanche(f, width, config.samples, seed ^ 0x4849474845520000ull, cancel)) {
      const double N = static_cast<double>(d.samples);
      t.higher_order += d.exact ? d.fit.chi2 / N : (d.fit.chi2 - d.fit.dof) / N;
      if (!d.exact) var += 2.0 * d.fit.dof / (N * N);
    }
    t.higher_order_stderr = std::sqrt(var);
  }
  t.penalty = config.bic_weight * std::max(t.bic, 0.0) + config.higher_order_weight * std::max(t.higher_order, 0.0);
  if (config.rrc_weight > 0) {
    t.rrc_cap_log2 = std::min(config.rrc_cap_log2, avalanche::rrc::max_cap_log2(width));
    if (config.rrc_chi2_bound <= 0 || (chi2 && *chi2 <= config.rrc_chi2_bound)) {
      const avalanche::rrc::RrcReport r =
          avalanche::rrc::rrc_battery(f, width, {avalanche::rrc::default_first_log2, config.rrc_cap_log2}, cancel);
      t.rrc_depth_log2 = r.depth_log2;
      t.rrc_passed_cap = r.passed_cap;
    }
    t.penalty += config.rrc_weight * (t.rrc_cap_log2 - rrc_passed_log2(t));
  }
  return t;
}

int rrc_passed_log2(const ObjectiveTerms& t) {
  if (t.rrc_passed_cap) return t.rrc_cap_log2;
  if (t.rrc_depth_log2 > 0) return t.rrc_depth_log2 - 1;
  return std::min(avalanche::rrc::default_first_log2, t.rrc_cap_log2) - 1;
}

std::uint64_t objective_seed(std::uint64_t run_seed) { return mix_seed(run_seed, 0x0b1ec71feull); }

nlohmann::json to_json(const ObjectiveTerms& t, double chi2) {
  nlohmann::json j = {{"bic", t.bic},
                      {"bic_stderr", t.bic_stderr},
                      {"bic_exact", t.bic_exact},
                      {"higher_order", t.higher_order},
                      {"higher_order_stderr", t.higher_order_stderr},
                      {"samples", t.samples},
                      {"penalty", t.penalty},
                      {"total", chi2 + t.penalty}};
  if (t.rrc_cap_log2 > 0) {
    j["rrc_cap_log2"] = t.rrc_cap_log2;
    j["rrc_depth_log2"] = t.rrc_depth_log2 > 0 ? nlohmann::json(t.rrc_depth_log2) : nlohmann::json(nullptr);
    j["rrc_passed_cap"] = t.rrc_passed_cap;
  }
  return j;
}

ObjectiveTerms objective_terms_from_json(const nlohmann::json& j) {
  ObjectiveTerms t;
  t.bic = j.at("bic").get<double>();
  t.bic_stderr = j.at("bic_stderr").get<double>();
  t.bic_exact = j.at("bic_exact").get<bool>();
  t.higher_order = j.at("higher_order").get<double>();
  t.higher_order_stderr = j.at("higher_order_stderr").get<double>();
  t.samples = j.at("samples").get<std::uint64_t>();
  t.penalty = j.at("penalty").get<double>();
  if (j.contains("rrc_cap_log2")) {
    t.rrc_cap_log2 = j.at("rrc_cap_log2").get<int>();
    t.rrc_depth_log2 = j.at("rrc_depth_log2").is_null() ? 0 : j.at("rrc_depth_log2").get<int>();
    t.rrc_passed_cap = j.at("rrc_passed_cap").get<bool>();
  }
  return t;
}

}  // namespace mixforge::evolver
