#include "evolver/search/objective.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "avalanche/bit_independence.hpp"
#include "avalanche/higher_order_avalanche.hpp"
#include "evolver/search/rng.hpp"

namespace mixforge::evolver {

ObjectiveTerms objective_terms(const avalanche::BatchFunction& f, int width, const ObjectiveConfig& config,
                               std::uint64_t seed, const std::atomic<bool>* cancel) {
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
  return t;
}

std::uint64_t objective_seed(std::uint64_t run_seed) { return mix_seed(run_seed, 0x0b1ec71feull); }

nlohmann::json to_json(const ObjectiveTerms& t, double chi2) {
  return {{"bic", t.bic},
          {"bic_stderr", t.bic_stderr},
          {"bic_exact", t.bic_exact},
          {"higher_order", t.higher_order},
          {"higher_order_stderr", t.higher_order_stderr},
          {"samples", t.samples},
          {"penalty", t.penalty},
          {"total", chi2 + t.penalty}};
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
  return t;
}

}  // namespace mixforge::evolver
