#include "evolver/search/climb.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

#include "evolver/search/local_search.hpp"

namespace mixforge::evolver {

Climb::Climb(mixer::Program start, double start_chi2, ClimbOptions options)
    : o_(options), start_(std::move(start)), start_chi2_(start_chi2), centre_(start_), centre_chi2_(start_chi2) {
  if (start_.width() > climb_max_width)
    throw std::invalid_argument("an exact climb needs a width of at most " + std::to_string(climb_max_width) +
                                " bits, not " + std::to_string(start_.width()));
  scores_.emplace(centre_.hash(), centre_chi2_);
  around_centre();
}

void Climb::around_centre() {
  around_ = neighbours(centre_);
  if (o_.order == MoveOrder::informed) {
    for (mixer::Program& q : top_bit_pairs(centre_)) around_.push_back(std::move(q));
    stats_.order(centre_, around_);
  }
  next_ = 0;
  in_pairs_ = false;
}

std::optional<ClimbStep> Climb::step(const ExactScore& exact, const ExactScore& check) {
  while (!done_) {
    if (next_ == around_.size()) {
      if (!in_pairs_ && o_.pairs) {
        around_ = pair_neighbours(centre_);
        order_pairs(centre_, scores_, around_);
        next_ = 0;
        in_pairs_ = true;
        continue;
      }
      done_ = true;
      break;
    }
    const mixer::Program q = around_[next_];
    if (scores_.contains(q.hash())) {
      ++next_;
      continue;
    }
    ClimbStep s;
    s.chi2 = exact(q);
    s.pair = in_pairs_ || (o_.order == MoveOrder::informed && move_class(centre_, q) == top_bit_pair_class);
    s.index = next_ + 1;
    s.count = around_.size();
    s.lower = s.chi2 < centre_chi2_;
    if (s.lower) s.check = check(q);  // two implementations, one score, before it counts
    scores_.emplace(q.hash(), s.chi2);
    ++scored_;
    ++next_;
    if (!in_pairs_) stats_.observe(centre_, centre_chi2_, q, s.chi2);
    if (s.lower && o_.move && *s.check == s.chi2) {
      centre_ = q;
      centre_chi2_ = s.chi2;
      ++moves_;
      s.moved = true;
      around_centre();
    } else if (!in_pairs_ && o_.order == MoveOrder::informed) {
      stats_.order(centre_, around_, next_);  // what this score taught, for the moves left
    }
    s.program = q;
    return s;
  }
  return std::nullopt;
}

void order_pairs(const mixer::Program& centre, const std::unordered_map<std::uint64_t, double>& scores,
                 std::vector<mixer::Program>& pairs) {
  const std::vector<mixer::Step>& c = centre.steps();
  auto score_of = [&](std::vector<mixer::Step> steps) {
    const auto it = scores.find(mixer::Program(centre.width(), std::move(steps)).hash());
    return it == scores.end() ? std::numeric_limits<double>::infinity() : it->second;
  };
  // The two single moves that make up q: one at each of two steps, or two bit flips of
  // one constant.
  auto key = [&](const mixer::Program& q) {
    std::vector<std::size_t> at;
    for (std::size_t i = 0; i < c.size(); ++i)
      if (q.steps()[i] != c[i]) at.push_back(i);
    std::vector<mixer::Step> a = c, b = c;
    if (at.size() == 2) {
      a[at[0]] = q.steps()[at[0]];
      b[at[1]] = q.steps()[at[1]];
    } else {
      const std::uint64_t x = q.steps()[at[0]].operand ^ c[at[0]].operand, low = x & (~x + 1);
      a[at[0]].operand ^= low;
      b[at[0]].operand ^= x ^ low;
    }
    return std::max(score_of(std::move(a)), score_of(std::move(b)));
  };
  sort_programs_by(pairs, 0, key);
}

bool run_climb(Climb& climb, const ExactScore& exact, const ExactScore& check, const ClimbHooks& hooks) {
  while (!climb.done()) {
    if (hooks.keep_going && !hooks.keep_going()) return false;
    const std::optional<ClimbStep> s = climb.step(exact, check);
    if (s && hooks.progress) hooks.progress(climb, *s);
  }
  return true;
}

}  // namespace mixforge::evolver
