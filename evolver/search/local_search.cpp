#include "evolver/search/local_search.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>
#include <unordered_set>
#include <utility>

#include "evolver/search/early_reject.hpp"
#include "evolver/search/rng.hpp"

namespace mixforge::evolver {

std::vector<mixer::Program> neighbours(const mixer::Program& p) {
  std::vector<mixer::Program> out;
  const int n = p.width();
  const std::vector<mixer::Step>& steps = p.steps();
  auto with = [&](std::size_t i, std::uint64_t operand) {
    std::vector<mixer::Step> s = steps;
    s[i].operand = operand;
    out.emplace_back(n, std::move(s));
  };
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const mixer::Step& s = steps[i];
    if (!mixer::takes_shift(s.kind)) continue;
    if (s.operand > 1) with(i, s.operand - 1);
    if (s.operand + 1 < static_cast<std::uint64_t>(n)) with(i, s.operand + 1);
  }
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const mixer::Step& s = steps[i];
    if (mixer::takes_shift(s.kind)) continue;
    for (int b = s.kind == mixer::StepKind::mul_const ? 1 : 0; b < n; ++b) with(i, s.operand ^ (std::uint64_t{1} << b));
  }
  return out;
}

std::vector<mixer::Program> pair_neighbours(const mixer::Program& p) {
  const std::vector<mixer::Program> singles = neighbours(p);
  // Each single move as (step, operand): neighbours() changes exactly one step.
  std::vector<std::pair<std::size_t, std::uint64_t>> moves;
  for (const mixer::Program& q : singles)
    for (std::size_t i = 0; i < q.size(); ++i)
      if (q.steps()[i] != p.steps()[i]) moves.emplace_back(i, q.steps()[i].operand);
  std::unordered_set<std::uint64_t> seen{p.hash()};
  for (const mixer::Program& q : singles) seen.insert(q.hash());
  std::vector<mixer::Program> out;
  for (std::size_t a = 0; a < moves.size(); ++a)
    for (std::size_t b = a + 1; b < moves.size(); ++b) {
      std::vector<mixer::Step> s = p.steps();
      const auto [i, x] = moves[a];
      const auto [j, y] = moves[b];
      if (i == j) {
        // Two moves of one operand: two bit flips of a constant. A shift's only two moves,
        // +1 and -1, cancel: that would be p itself.
        if (mixer::takes_shift(s[i].kind)) continue;
        s[i].operand = x ^ y ^ s[i].operand;
      } else {
        s[i].operand = x;
        s[j].operand = y;
      }
      mixer::Program q(p.width(), std::move(s));
      if (!seen.insert(q.hash()).second) continue;
      out.push_back(std::move(q));
    }
  return out;
}

namespace {

// Counts on one sample stream extended to the next size.
avalanche::Score extend(const mixer::Program& p, const avalanche::Evaluator& ev, avalanche::GroupedCounts& acc,
                        std::uint64_t seed, std::uint64_t to, std::uint64_t& samples) {
  samples += to - acc.trials();
  ev.extend_sampled(acc, p, seed, to - acc.trials());
  return acc.score();
}

}  // namespace

LocalSearch::LocalSearch(mixer::Program start, double start_exact, LocalSearchOptions options)
    : o_(options), centre_(std::move(start)), centre_exact_(start_exact) {
  if (centre_.width() > 32) throw std::invalid_argument("local search needs exact scores: width <= 32");
  if (o_.first_samples == 0 || o_.max_samples < o_.first_samples)
    throw std::invalid_argument("local search needs 0 < first_samples <= max_samples");
}

void LocalSearch::enter(const mixer::Program& centre, double exact, const avalanche::Evaluator& ev) {
  centre_ = centre;
  centre_exact_ = exact;
  sizes_.clear();
  base_.clear();
  avalanche::GroupedCounts acc(centre.width());
  const unsigned growth = std::max(o_.growth, 2u);
  // Samples beyond a quarter of 2^n cost about as much as the exact score itself: small
  // widths go straight to exact scores.
  const std::uint64_t useful = (std::uint64_t{1} << centre.width()) / 4;
  for (std::uint64_t n = o_.first_samples; n <= useful; n = std::min<std::uint64_t>(n * growth, o_.max_samples)) {
    sizes_.push_back(n);
    base_.push_back(extend(centre, ev, acc, o_.seed, n, counters_.samples));
    if (n >= o_.max_samples || base_.back().chi2_stderr <= o_.rel_stderr * exact) break;
  }
  around_ = neighbours(centre);
  Rng rng(o_.seed, centre.hash());
  std::shuffle(around_.begin(), around_.end(), rng);
  next_ = 0;
  in_pairs_ = false;
  entered_ = true;
  counters_.local_optimum = false;
}

bool LocalSearch::settle(const avalanche::Evaluator& ev, const LocalSearchHooks& hooks) {
  ++counters_.exact_scored;
  const Estimate e = hooks.exact(centre_);  // may throw: still pending next time
  pending_ = false;
  if (!(e.chi2 < centre_exact_)) {
    ++counters_.reverted;
    const mixer::Program back = settled_;
    enter(back, centre_exact_, ev);
    return true;
  }
  ++counters_.improvements;
  centre_exact_ = e.chi2;
  return !hooks.improved || hooks.improved(centre_, e);
}

void LocalSearch::run(const avalanche::Evaluator& ev, const LocalSearchHooks& hooks) {
  if (centre_.empty() || counters_.local_optimum) return;
  if (!entered_) enter(centre_, centre_exact_, ev);
  for (;;) {
    if (next_ == around_.size()) {
      if (pending_) {  // the end of a neighbourhood: the best so far is scored now
        if (!settle(ev, hooks)) return;
        continue;
      }
      if (!o_.pairs || in_pairs_) break;
      // A local optimum of single moves: the pairs next, in an order of their own.
      around_ = pair_neighbours(centre_);
      Rng rng(o_.seed ^ 0x7061697273ull, centre_.hash());
      std::shuffle(around_.begin(), around_.end(), rng);
      next_ = 0;
      in_pairs_ = true;
      continue;
    }
    const mixer::Program& q = around_[next_];
    const std::uint64_t h = q.hash();
    if (tried_.contains(h) || (hooks.skip && hooks.skip(h))) {
      ++next_;
      continue;
    }
    if (hooks.keep_going && !hooks.keep_going()) return;  // continue here next time
    ++next_;
    tried_.insert(h);
    ++counters_.neighbours;
    avalanche::GroupedCounts acc(q.width());
    bool passed = sizes_.empty();
    bool decisive = false;
    avalanche::Score last_score;
    for (std::size_t k = 0; k < sizes_.size(); ++k) {
      const avalanche::Score s = extend(q, ev, acc, o_.seed, sizes_[k], counters_.samples);
      last_score = s;
      // Both scores come from the same inputs, so much of their noise is shared; the
      // bound below (independent errors) is the generous side.
      const double se = std::hypot(s.chi2_stderr, base_[k].chi2_stderr);
      const double diff = s.chi2_corrected - base_[k].chi2_corrected;
      const bool last = k + 1 == sizes_.size();
      if (last ? !(diff < 0) : !(diff < o_.z * se)) break;
      passed = last;
      decisive = last && o_.decisive_z > 0 && diff < -o_.decisive_z * se;
    }
    if (!passed) continue;
    if (sampled_centre()) {
      if (sizes_.empty()) continue;  // no stages: nothing to compare a sampled centre with
      ++counters_.sampled_moves;
      const mixer::Program candidate = q;  // enter() replaces around_
      enter(candidate, centre_exact_, ev);
      if (hooks.improved && !hooks.improved(candidate, estimate_of(last_score))) return;
      continue;
    }
    const mixer::Program candidate = q;  // enter() replaces around_
    if (decisive) {
      ++counters_.decisive_moves;
      if (!pending_) settled_ = centre_;
      enter(candidate, centre_exact_, ev);
      pending_ = true;
      continue;
    }
    if (pending_) {
      const std::uint64_t was = centre_.hash();
      if (!settle(ev, hooks)) return;
      if (centre_.hash() != was) continue;  // settle went back: q is no neighbour of it
    }
    ++counters_.exact_scored;
    const Estimate e = hooks.exact(candidate);
    if (!(e.chi2 < centre_exact_)) continue;
    ++counters_.improvements;
    enter(candidate, e.chi2, ev);
    if (hooks.improved && !hooks.improved(candidate, e)) return;
  }
  counters_.local_optimum = true;
}

std::optional<avalanche::Score> LocalSearch::centre_score() const {
  if (base_.empty()) return std::nullopt;
  return base_.back();
}

LocalSearchCounters local_search(const mixer::Program& start, double start_exact, const avalanche::Evaluator& evaluator,
                                 const LocalSearchOptions& options, const LocalSearchHooks& hooks) {
  if (start.width() > 32 || start.empty()) return {};
  LocalSearch s(start, start_exact, options);
  s.run(evaluator, hooks);
  return s.counters();
}

}  // namespace mixforge::evolver
