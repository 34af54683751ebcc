#include "evolver/search/move_order.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

namespace mixforge::evolver {

namespace {

// The prior's expected log2(chi2 / centre chi2) per class, worth prior_weight scores each.
// Read off the single moves around f35a2d97 and triple32 (bench/results/records/
// neighbourhood32.txt, climb32x3.txt): a multiplier's eighths 0-3 cost 1.5-2.4 (2-round)
// and 0.25-0.4 (3-round), eighth 4-5 about 0.8 and 0.12-0.27, eighth 6 0.42 and 0.11,
// eighth 7 0.22 and 0.18; outer shifts 2.2 and 0.18, inner 3.8 and 0.29. The values below
// keep that ranking; the climb's own scores outweigh them after a few moves of a class.
constexpr std::array<double, move_class_count> prior_log2 = {
    1.6, 1.6, 1.5, 1.4, 0.8, 0.7, 0.4, 0.2,  // multiplier bits, low eighth first
    1.6, 1.6, 1.5, 1.4, 1.0, 0.9, 0.8, 0.7,  // other constants: no survey, a weaker slope
    1.0, 1.0, 2.0, 2.0,                      // outer shifts -1 and +1, inner shifts -1 and +1
    0.3,                                     // two top-eighth bits of a multiplier
};
constexpr double prior_weight = 2;
// Far from an optimum every class starts at a gain of 0.5 (a 30 % lower chi2 per move), more
// than most moves give, so each class is tried before the ones that paid are preferred.
constexpr double prior_gain = 0.5;

// A ratio of exact chi2s, in log2, kept finite (a chi2 of 0 happens only in toy widths).
double log2_ratio(double chi2, double centre_chi2) {
  const double r = std::log2(std::max(chi2, 1e-300) / std::max(centre_chi2, 1e-300));
  return std::clamp(r, -16.0, 16.0);
}

}  // namespace

std::string_view move_order_name(MoveOrder order) { return order == MoveOrder::fixed ? "fixed" : "informed"; }

MoveOrder parse_move_order(std::string_view name) {
  if (name == "fixed") return MoveOrder::fixed;
  if (name == "informed") return MoveOrder::informed;
  throw std::invalid_argument("move order must be \"fixed\" or \"informed\", not \"" + std::string(name) + "\"");
}

int move_class(const mixer::Program& centre, const mixer::Program& q) {
  const std::vector<mixer::Step>& a = centre.steps();
  const std::vector<mixer::Step>& b = q.steps();
  if (a.size() != b.size()) throw std::invalid_argument("move_class: programs of different lengths");
  std::size_t at = a.size();
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i] != b[i]) {
      if (at != a.size()) throw std::invalid_argument("move_class: more than one step differs");
      at = i;
    }
  if (at == a.size()) throw std::invalid_argument("move_class: no step differs");
  const mixer::Step& s = a[at];
  if (mixer::takes_shift(s.kind))
    return (at == 0 || at + 1 == a.size() ? 16 : 18) + (b[at].operand > s.operand ? 1 : 0);
  const std::uint64_t flipped = s.operand ^ b[at].operand;
  auto eighth_of = [&](int bit) { return std::min(7, bit * 8 / centre.width()); };
  const int high = 63 - std::countl_zero(flipped);
  if (std::popcount(flipped) == 2) {
    const int low = std::countr_zero(flipped);
    if (s.kind != mixer::StepKind::mul_const || eighth_of(low) != 7)
      throw std::invalid_argument("move_class: a pair of bits outside a multiplier's top eighth");
    return top_bit_pair_class;
  }
  if (std::popcount(flipped) != 1) throw std::invalid_argument("move_class: not one or two bits of a constant");
  return (s.kind == mixer::StepKind::mul_const ? 0 : 8) + eighth_of(high);
}

std::vector<mixer::Program> top_bit_pairs(const mixer::Program& p) {
  std::vector<mixer::Program> out;
  const int n = p.width();
  const int from = (n * 7 + 7) / 8;  // the lowest bit whose eighth (bit * 8 / n) is 7
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (p.steps()[i].kind != mixer::StepKind::mul_const) continue;
    for (int a = from; a < n; ++a)
      for (int b = a + 1; b < n; ++b) {
        std::vector<mixer::Step> s = p.steps();
        s[i].operand ^= (std::uint64_t{1} << a) | (std::uint64_t{1} << b);
        out.emplace_back(n, std::move(s));
      }
  }
  return out;
}

MoveStats::MoveStats() {
  for (int c = 0; c < move_class_count; ++c) {
    sum_[c] = prior_log2[c] * prior_weight;
    count_[c] = prior_weight;
    gain_[c] = prior_gain * prior_weight;
  }
}

void MoveStats::observe(const mixer::Program& centre, double centre_chi2, const mixer::Program& q, double chi2) {
  const int c = move_class(centre, q);
  const double r = log2_ratio(chi2, centre_chi2);
  sum_[c] += r;
  gain_[c] += std::max(0.0, -r);
  count_[c] += 1;
  recent_ = ((recent_ << 1) | (r < 0 ? 1u : 0u)) & 0xffu;
}

double MoveStats::expected(int c) const { return sum_.at(c) / count_.at(c); }
double MoveStats::expected_gain(int c) const { return gain_.at(c) / count_.at(c); }
bool MoveStats::far() const { return std::popcount(recent_) >= 2; }

void sort_programs_by(std::vector<mixer::Program>& programs, std::size_t from,
                      const std::function<double(const mixer::Program&)>& key) {
  if (from >= programs.size()) return;
  std::vector<std::pair<double, std::size_t>> keys;
  keys.reserve(programs.size() - from);
  for (std::size_t i = from; i < programs.size(); ++i) keys.emplace_back(key(programs[i]), i);
  std::stable_sort(keys.begin(), keys.end(), [](const auto& u, const auto& v) { return u.first < v.first; });
  std::vector<mixer::Program> sorted;
  sorted.reserve(keys.size());
  for (const auto& [k, i] : keys) sorted.push_back(std::move(programs[i]));
  std::move(sorted.begin(), sorted.end(), programs.begin() + static_cast<std::ptrdiff_t>(from));
}

void MoveStats::order(const mixer::Program& centre, std::vector<mixer::Program>& moves, std::size_t from) const {
  const bool by_gain = far();
  sort_programs_by(moves, from, [&](const mixer::Program& q) {
    const int c = move_class(centre, q);
    return by_gain ? -expected_gain(c) + 1e-3 * expected(c) : expected(c);
  });
}

}  // namespace mixforge::evolver
