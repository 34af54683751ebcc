// The exact climb's order of single moves (evolver/search/move_order.*; issue 52 part 3),
// fixed against informed, on many starts where exact scores are cheap: random 2-round
// xsr-mul functions (xsr, mul, xsr, mul, xsr) at WIDTH bits, shifts in [n/4, 3n/4], odd
// random multipliers. Each start is climbed to a local optimum of its single moves (pairs
// off; the informed neighbourhood also holds the multipliers' top-bit pairs) in each order,
// with the JIT's exact scores. Prints one row per start and a summary: exact scores until
// the climb reached its last centre and until it ended (the last sweep certifies the
// optimum), and the end's chi2; the ratios informed / fixed.
//
// The second form climbs given programs (published functions: where a user's polish
// starts) for at most MAX_SCORES exact scores in each order and prints the centre's chi2
// after 10, 20, 40, ... scores.
//
//   bench_move_order WIDTH STARTS [SEED]
//   bench_move_order --programs MAX_SCORES PROGRAM...
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "avalanche/evaluator.hpp"
#include "avalanche/stats/chi_square.hpp"
#include "evolver/search/climb.hpp"
#include "evolver/search/move_order.hpp"
#include "evolver/search/rng.hpp"
#include "mixer/text_form.hpp"

using namespace mixforge;

namespace {

struct Outcome {
  std::uint64_t to_best = 0;  // exact scores until the last move
  std::uint64_t to_end = 0;   // exact scores until the local optimum
  std::uint64_t moves = 0;
  double chi2 = 0;
  double seconds = 0;
};

// The centre's chi2 after each exact score (index 0: the start), at most max_scores.
std::vector<double> trajectory(const mixer::Program& start, evolver::MoveOrder order, const avalanche::Evaluator& ev,
                               std::uint64_t max_scores) {
  auto exact = [&](const mixer::Program& q) { return avalanche::score(ev.counts_exact(q)).chi2; };
  evolver::ClimbOptions o;
  o.pairs = false;
  o.order = order;
  evolver::Climb c(start, exact(start), o);
  std::vector<double> out{c.centre_chi2()};
  evolver::ClimbHooks hooks;
  hooks.keep_going = [&] { return c.scored() < max_scores; };
  hooks.progress = [&](const evolver::Climb& cl, const evolver::ClimbStep&) { out.push_back(cl.centre_chi2()); };
  evolver::run_climb(c, exact, exact, hooks);
  return out;
}

int programs_main(int argc, char** argv) {
  const std::uint64_t max_scores = std::strtoull(argv[2], nullptr, 10);
  const auto ev = avalanche::Evaluator::with_own_engine();
  std::vector<std::uint64_t> at;
  for (std::uint64_t k = 10; k <= max_scores; k *= 2) at.push_back(k);
  if (at.empty() || at.back() != max_scores) at.push_back(max_scores);
  std::printf("| start | order |");
  for (std::uint64_t k : at) std::printf(" after %llu |", (unsigned long long)k);
  std::printf("\n|---|---|");
  for (std::size_t i = 0; i < at.size(); ++i) std::printf("---|");
  std::printf("\n");
  for (int a = 3; a < argc; ++a) {
    const mixer::Program start = mixer::parse_program(argv[a], mixer::ParseOptions{32});
    for (const evolver::MoveOrder order : {evolver::MoveOrder::fixed, evolver::MoveOrder::informed}) {
      const std::vector<double> t = trajectory(start, order, *ev, max_scores);
      std::printf("| `%s` (%.6e) | %s |", mixer::format_short(start).c_str(), t.front(),
                  std::string(evolver::move_order_name(order)).c_str());
      for (std::uint64_t k : at) std::printf(" %.6e |", t[std::min<std::size_t>(k, t.size() - 1)]);
      std::printf("\n");
      std::fflush(stdout);
    }
  }
  return 0;
}

Outcome climb(const mixer::Program& start, evolver::MoveOrder order, const avalanche::Evaluator& ev) {
  auto exact = [&](const mixer::Program& q) { return avalanche::score(ev.counts_exact(q)).chi2; };
  const auto t0 = std::chrono::steady_clock::now();
  evolver::ClimbOptions o;
  o.pairs = false;
  o.order = order;
  evolver::Climb c(start, exact(start), o);
  Outcome out;
  evolver::ClimbHooks hooks;
  hooks.progress = [&](const evolver::Climb& cl, const evolver::ClimbStep& s) {
    if (s.moved) out.to_best = cl.scored();
  };
  // The check is the same JIT score: this bench compares orders, the climb's own tests
  // check its moves against the interpreter.
  evolver::run_climb(c, exact, exact, hooks);
  out.to_end = c.scored();
  out.moves = c.moves();
  out.chi2 = c.centre_chi2();
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 4 && std::string(argv[1]) == "--programs") return programs_main(argc, argv);
  if (argc < 3) {
    std::fprintf(stderr, "usage: bench_move_order WIDTH STARTS [SEED]\n");
    return 2;
  }
  const int width = std::atoi(argv[1]);
  const int starts = std::atoi(argv[2]);
  const std::uint64_t seed = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 1;
  if (width < 8 || width > 32 || starts < 1) {
    std::fprintf(stderr, "WIDTH must be 8..32 and STARTS >= 1\n");
    return 2;
  }
  const auto ev = avalanche::Evaluator::with_own_engine();
  evolver::Rng rng(seed, 0x6d6f76650000ull + static_cast<std::uint64_t>(width));
  const std::uint64_t mask = (std::uint64_t{1} << width) - 1;  // width <= 32
  std::printf(
      "| start | fixed: scores to best / to end | informed | fixed end chi2 | informed end chi2 | informed / fixed "
      "chi2 |\n");
  std::printf("|---|---|---|---|---|---|\n");
  std::vector<double> best_ratio, end_ratio, chi2_ratio;
  int lower = 0, equal = 0;
  double fixed_s = 0, informed_s = 0;
  for (int k = 0; k < starts; ++k) {
    auto shift = [&] {
      return static_cast<std::uint64_t>(width / 4 + rng.below(static_cast<std::uint64_t>(width / 2 + 1)));
    };
    auto mul = [&] { return (rng.next() & mask) | 1; };
    std::vector<mixer::Step> steps = {{mixer::StepKind::xorshift_right, shift()},
                                      {mixer::StepKind::mul_const, mul()},
                                      {mixer::StepKind::xorshift_right, shift()},
                                      {mixer::StepKind::mul_const, mul()},
                                      {mixer::StepKind::xorshift_right, shift()}};
    const mixer::Program start(width, steps);
    const Outcome f = climb(start, evolver::MoveOrder::fixed, *ev);
    const Outcome i = climb(start, evolver::MoveOrder::informed, *ev);
    fixed_s += f.seconds;
    informed_s += i.seconds;
    best_ratio.push_back(double(std::max<std::uint64_t>(i.to_best, 1)) / double(std::max<std::uint64_t>(f.to_best, 1)));
    end_ratio.push_back(double(i.to_end) / double(f.to_end));
    chi2_ratio.push_back(i.chi2 / f.chi2);
    if (i.chi2 < f.chi2) ++lower;
    if (i.chi2 == f.chi2) ++equal;
    std::printf("| `%s` | %llu / %llu (%llu moves) | %llu / %llu (%llu moves) | %.6e | %.6e | %.3f |\n",
                mixer::format_short(start).c_str(), (unsigned long long)f.to_best, (unsigned long long)f.to_end,
                (unsigned long long)f.moves, (unsigned long long)i.to_best, (unsigned long long)i.to_end,
                (unsigned long long)i.moves, f.chi2, i.chi2, i.chi2 / f.chi2);
    std::fflush(stdout);
  }
  double log_sum = 0;
  for (double r : chi2_ratio) log_sum += std::log(r);
  std::printf(
      "\n%d starts at %d bits (seed %llu): informed / fixed, median exact scores to the last move %.3f, "
      "to the end %.3f; end chi2 geometric mean ratio %.4f, informed lower at %d starts, equal at %d, "
      "higher at %d; %.1f s fixed, %.1f s informed\n",
      starts, width, (unsigned long long)seed, median(best_ratio), median(end_ratio), std::exp(log_sum / starts), lower,
      equal, starts - lower - equal, fixed_s, informed_s);
  return 0;
}
