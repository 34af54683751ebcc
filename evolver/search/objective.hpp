#pragma once
// The run's optional objective beyond single-bit avalanche (issue 11): the bit
// independence criterion and higher-order (2- and 3-bit flip) avalanche of
// avalanche/stats/bit_independence.hpp and avalanche/stats/higher_order_avalanche.hpp, added to the
// avalanche chi2 with the weights of the run configuration:
//
//   total = chi2 + bic_weight * max(bic, 0) + higher_order_weight * max(higher_order, 0)
//
// Both terms are normalised the way the avalanche chi2 is: noise-corrected, so an ideal
// random function scores about 0 whatever the sample count (exact counts are not
// corrected, like an exact chi2).
//  - bic: n^2/2 times the mean squared output-pair correlation c over the n*n(n-1)/2
//    (input bit, output pair) cells, i.e. sum(c^2) / (n - 1): the avalanche chi2 is n^2/2
//    times the mean squared flip bias (2A - 1)^2, so both are in the same units. Sampled:
//    (S - cells) / (N (n - 1)) with S = sum N c^2 ~ chi2(cells) for an ideal function.
//  - higher_order: the Pearson chi2 divergence of the output Hamming distance from
//    Binomial(n, 1/2) for 2- and 3-bit flips, summed: (X2 - dof) / N for each.
// Negative estimates are sampling noise and count as 0 in the total.
//
// The RRC term (issue 51) rewards depth in Evensen's RRC streams (avalanche/quality/rrc/):
//
//   rrc = rrc_weight * (rrc_cap_log2 - survived),  survived = the longest length passed
//
// (the cap when it passes the cap; depth - 1 when it fails at 2^depth), in chi2 units per
// missing doubling. The battery costs 0.1 s (fails at 2^12) to seconds (deep functions), so
// it runs only for programs whose chi2 is at most rrc_chi2_bound (0: every program); the
// others count as failing at the first length. A weighted sum, not a Pareto rank: the
// pool's tournament and logistic acceptance compare one number; the run's Pareto front
// (chi2, depth, cost) is what a user chooses from (GET /runs/{id}/front).
//
// All programs of a run are measured on the same inputs (one fixed seed and sample count:
// common random numbers), so their terms compare fairly. Weights 0 (the default) leave
// the run exactly as it was: nothing is computed and ranks are the plain chi2.
#include <atomic>
#include <cstdint>
#include <optional>

#include <nlohmann/json_fwd.hpp>

#include "avalanche/batch_function.hpp"

namespace mixforge::evolver {

struct ObjectiveConfig {
  double bic_weight = 0;           // >= 0, finite
  double higher_order_weight = 0;  // >= 0, finite
  // Inputs per flipped input bit (bic) and per flip size (higher_order). From 2^(n-1) on,
  // the bic term is counted exactly (every input pair once).
  std::uint64_t samples = std::uint64_t{1} << 14;
  double rrc_weight = 0;      // >= 0, finite: penalty per doubling of RRC depth short of the cap
  int rrc_cap_log2 = 20;      // the depth measured up to (11..40)
  double rrc_chi2_bound = 0;  // depth measured for chi2 <= this only (0: for every program)
  bool enabled() const { return bic_weight > 0 || higher_order_weight > 0 || rrc_weight > 0; }
  friend bool operator==(const ObjectiveConfig&, const ObjectiveConfig&) = default;
};

// A program's extra terms under one ObjectiveConfig.
struct ObjectiveTerms {
  double bic = 0;
  double bic_stderr = 0;           // of an ideal function at these samples (0 when exact)
  double higher_order = 0;
  double higher_order_stderr = 0;  // likewise
  std::uint64_t samples = 0;
  bool bic_exact = false;
  int rrc_cap_log2 = 0;    // with an RRC term: the cap; 0: no RRC term
  int rrc_depth_log2 = 0;  // the RRC depth (the cap when passed); 0: not measured (chi2 above the bound)
  bool rrc_passed_cap = false;
  double penalty = 0;              // the weighted sum the total adds to chi2
  friend bool operator==(const ObjectiveTerms&, const ObjectiveTerms&) = default;
};

// The terms of f (width bits) on the inputs of seed; computes only the terms whose weight
// is positive (the others stay 0). chi2: the program's avalanche estimate, for the RRC
// term's bound (unknown: the depth is measured). cancel (may be null): EvaluationCancelled.
ObjectiveTerms objective_terms(const avalanche::BatchFunction& f, int width, const ObjectiveConfig& config,
                               std::uint64_t seed, const std::atomic<bool>* cancel = nullptr,
                               std::optional<double> chi2 = std::nullopt);

// The longest RRC length passed, as log2 (with an RRC term): the cap when it passed, depth - 1
// when it failed at 2^depth, one below the first length when not measured (counted as
// failing there). What the RRC term and the run's Pareto front compare.
int rrc_passed_log2(const ObjectiveTerms& terms);

// The inputs every program of a run is measured on.
std::uint64_t objective_seed(std::uint64_t run_seed);

// Wire form: {"bic", "bic_stderr", "higher_order", "higher_order_stderr", "samples",
// "bic_exact", "penalty", "total"}, and with an RRC term "rrc_cap_log2", "rrc_depth_log2"
// (null: not measured) and "rrc_passed_cap"; total = chi2 + penalty (chi2: the function's best
// avalanche estimate, passed in).
nlohmann::json to_json(const ObjectiveTerms& terms, double chi2);
// The inverse (total is ignored: it follows from chi2). nlohmann::json exceptions.
ObjectiveTerms objective_terms_from_json(const nlohmann::json& j);

}  // namespace mixforge::evolver
