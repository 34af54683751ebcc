#include "avalanche/stats/chi2_distribution.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

namespace mixforge::avalanche {
namespace {

// Regularised lower P(a, x) by its series (x < a + 1) and upper Q(a, x) by Lentz's
// continued fraction (x >= a + 1): each converges fast where it is used.
double gamma_p_series(double a, double x) {
  double sum = 1.0 / a, term = sum;
  for (int k = 1; k < 100000; ++k) {
    term *= x / (a + k);
    sum += term;
    if (std::fabs(term) < std::fabs(sum) * 1e-16) break;
  }
  return sum * std::exp(-x + a * std::log(x) - std::lgamma(a));
}

double gamma_q_fraction(double a, double x) {
  const double tiny = 1e-300;
  double b = x + 1 - a, c = 1 / tiny, d = 1 / b, h = d;
  for (int i = 1; i < 100000; ++i) {
    const double an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (std::fabs(d) < tiny) d = tiny;
    c = b + an / c;
    if (std::fabs(c) < tiny) c = tiny;
    d = 1 / d;
    const double delta = d * c;
    h *= delta;
    if (std::fabs(delta - 1) < 1e-16) break;
  }
  return std::exp(-x + a * std::log(x) - std::lgamma(a)) * h;
}

}  // namespace

double chi2_survival(double x, double dof) {
  if (!(dof > 0)) throw std::invalid_argument("chi2_survival needs dof > 0");
  if (!(x > 0)) return 1.0;
  const double a = dof / 2, h = x / 2;
  return h < a + 1 ? 1.0 - gamma_p_series(a, h) : gamma_q_fraction(a, h);
}

double chi2_cdf(double x, double dof) {
  if (!(dof > 0)) throw std::invalid_argument("chi2_cdf needs dof > 0");
  if (!(x > 0)) return 0.0;
  const double a = dof / 2, h = x / 2;
  return h < a + 1 ? gamma_p_series(a, h) : 1.0 - gamma_q_fraction(a, h);
}

double normal_two_sided(double z) { return std::erfc(std::fabs(z) / std::sqrt(2.0)); }

double kolmogorov_survival(double d, std::size_t n) {
  if (n == 0) throw std::invalid_argument("kolmogorov_survival needs n >= 1");
  if (!(d > 0)) return 1.0;
  const double sn = std::sqrt(static_cast<double>(n));
  const double lambda = (sn + 0.12 + 0.11 / sn) * d;
  if (lambda < 0.2) return 1.0;  // the series converges slowly there, and the answer is 1 to 1e-9
  double sum = 0;
  for (int k = 1; k <= 100; ++k) {
    const double term = std::exp(-2.0 * k * k * lambda * lambda);
    sum += (k % 2 == 1 ? 2.0 : -2.0) * term;
    if (term < 1e-18 * sum) break;
  }
  return std::min(1.0, std::max(0.0, sum));
}

PooledChi2 pooled_chi2(const std::vector<double>& observed, const std::vector<double>& expected) {
  if (observed.size() != expected.size())
    throw std::invalid_argument("pooled_chi2: observed and expected differ in size");
  std::vector<std::pair<double, double>> cells;  // (observed, expected)
  double o = 0, e = 0;
  for (std::size_t k = 0; k < observed.size(); ++k) {
    o += observed[k];
    e += expected[k];
    if (e >= 5) {
      cells.emplace_back(o, e);
      o = e = 0;
    }
  }
  if (!cells.empty()) {
    cells.back().first += o;
    cells.back().second += e;
  }
  PooledChi2 r;
  if (cells.size() < 2) return r;
  for (const auto& [co, ce] : cells) r.chi2 += (co - ce) * (co - ce) / ce;
  r.dof = static_cast<int>(cells.size()) - 1;
  return r;
}

std::vector<double> binomial_half_pmf(int n) {
  if (n < 0 || n > 1024) throw std::invalid_argument("binomial_half_pmf needs 0 <= n <= 1024");
  std::vector<double> p(static_cast<std::size_t>(n) + 1);
  // log C(n, k) - n log 2 through lgamma: exact enough and never overflows.
  for (int k = 0; k <= n; ++k)
    p[k] = std::exp(std::lgamma(n + 1.0) - std::lgamma(k + 1.0) - std::lgamma(n - k + 1.0) - n * std::log(2.0));
  return p;
}

Verdict verdict_for_p_value(double p) {
  if (p < 1e-6) return Verdict::failed;
  if (p < 0.005) return Verdict::weak;
  return Verdict::passed;
}

std::string_view verdict_name(Verdict v) {
  switch (v) {
    case Verdict::passed: return "passed";
    case Verdict::weak: return "weak";
    case Verdict::failed: return "failed";
  }
  return "passed";
}

}  // namespace mixforge::avalanche
