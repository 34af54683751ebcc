#pragma once
// The chi-square and binomial distributions the quality measures test against, and the
// verdict a p-value earns (dieharder's thresholds, so all parts of a quality report read
// alike).
#include <cstddef>
#include <string_view>
#include <vector>

namespace mixforge::avalanche {

// P(X >= x) for X ~ chi2(dof): the regularised upper incomplete gamma Q(dof/2, x/2).
// dof > 0; x <= 0 gives 1.
double chi2_survival(double x, double dof);

// P(X <= x) for X ~ chi2(dof), computed directly (not as 1 - survival), so that a tiny
// lower tail (a fit too good to be chance) keeps its digits.
double chi2_cdf(double x, double dof);

// Two-sided p-value of a standard normal statistic: P(|Z| >= |z|).
double normal_two_sided(double z);

// P(D_n >= d) for the one-sample Kolmogorov-Smirnov statistic of n values (Stephens'
// approximation to the limiting distribution; good to a few per cent for n >= 5, and in
// the far tail, which is what a 1e-9 rule reads).
double kolmogorov_survival(double d, std::size_t n);

// A chi-square of observed against expected counts, cells pooled left to right until each
// expects at least 5 (what is left of the upper tail joins the last cell); dof = cells - 1,
// and 0 (chi2 0) with fewer than two cells: nothing to test.
struct PooledChi2 {
  double chi2 = 0;
  int dof = 0;
};
PooledChi2 pooled_chi2(const std::vector<double>& observed, const std::vector<double>& expected);

// P(X = k) for X ~ Binomial(n, 1/2), k = 0..n (n <= 1024).
std::vector<double> binomial_half_pmf(int n);

enum class Verdict { passed, weak, failed };
// One-sided (large statistics are bad): p < 1e-6 failed, p < 0.005 weak, else passed.
Verdict verdict_for_p_value(double p);
std::string_view verdict_name(Verdict v);  // "passed", "weak", "failed"

}  // namespace mixforge::avalanche
