// bench_record_neighbourhood: how far around a record its shape was searched exhaustively,
// by exact scores (the tiled interpreter, avalanche/count/exact_counter.hpp), one thread:
//   shifts      every combination of the shift amounts (1..n-1 each), constants fixed
//               (above 2e5 combinations: every value of every two shift amounts)
//   constant k  every value of constant k alone (odd for a multiplier), the rest fixed
//   two flips   every pair of single-bit flips, within one constant or across two
// For each part: how many programs, how many strictly better than the record, the best
// found. A record with none better in every part is the optimum of that neighbourhood.
//
//   bench_record_neighbourhood WIDTH 'PROGRAM TEXT' [CHI2 (the record's exact score, to 5 digits)]
//
// At 32 bits an exact score takes seconds, so the wide parts are out of reach. --moves
// searches the local search's own neighbourhood instead (evolver/search/local_search.hpp),
// every program one move away (neighbours) and two moves away (pair_neighbours), with JIT
// exact scores on all cores, one line per program scored as it goes (a run cut short
// still says how far it got):
//   bench_record_neighbourhood --moves WIDTH 'PROGRAM TEXT' [CHI2]
// --climb instead of --moves moves to the first lower program found (checked by the
// interpreter) and starts again around it: an exact first-improvement local search that
// ends at a local optimum of one and two moves. Both take the pairs in the order of their
// single moves' scores (order_pairs). The climb is the product's (evolver/search/climb.hpp,
// `mixforge polish`); this tool prints every program it scores.
#include <tbb/global_control.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "avalanche/stats/chi_square.hpp"
#include "avalanche/evaluator.hpp"
#include "avalanche/count/exact_counter.hpp"
#include "evolver/search/climb.hpp"
#include "mixer/text_form.hpp"

namespace {

using namespace mixforge;

struct Part {
  explicit Part(std::string n) : name(std::move(n)) {}
  std::string name;
  std::uint64_t programs = 0, better = 0;
  double best = 0;
  mixer::Program best_program;
};

double chi2(const mixer::Program& p) { return avalanche::score(avalanche::interpreted_counts_exact(p)).chi2; }

// Counts q, of exact chi2 c, into part: better than record or not, the part's best so far.
void tally(Part& part, const mixer::Program& q, double c, double record) {
  ++part.programs;
  if (c < record) ++part.better;
  if (part.programs == 1 || c < part.best) {
    part.best = c;
    part.best_program = q;
  }
}

void consider(Part& part, const mixer::Program& q, double record) { tally(part, q, chi2(q), record); }

// --moves: every program one and two moves away (a survey), JIT exact scores on all cores.
// climb: the exact climb (evolver/search/climb.hpp), until a local optimum of one and two
// moves: the first lower program, checked by the interpreter, becomes the centre.
int moves(int n, const char* text, const char* expect, bool climb) {
  const mixer::Program record = mixer::parse_program(text, mixer::ParseOptions{n});
  const auto ev = avalanche::Evaluator::with_own_engine();
  const double record_chi2 = ev->exact(record).chi2;
  // The interpreter agrees with the JIT on the record: two implementations, one score.
  const double interpreted = chi2(record);
  if (interpreted != record_chi2) {
    std::fprintf(stderr, "the JIT scores the record %.10g, the interpreter %.10g\n", record_chi2, interpreted);
    return 1;
  }
  if (expect && std::abs(record_chi2 - std::atof(expect)) > 1e-4 * record_chi2) {
    std::fprintf(stderr, "the record scores %.10g, not %s\n", record_chi2, expect);
    return 1;
  }
  std::printf("record %s  exact chi2 %.10g (JIT and interpreter agree)\n", mixer::format_short(record).c_str(),
              record_chi2);
  std::fflush(stdout);
  const auto t0 = std::chrono::steady_clock::now();
  auto seconds = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  evolver::ClimbOptions options;
  options.move = climb;
  evolver::Climb c(record, record_chi2, options);
  // Each centre's parts, reported when the climb leaves it or ends there.
  std::vector<Part> parts;
  auto fresh_parts = [&] { parts = {Part("one move (neighbours)"), Part("two moves (pair_neighbours)")}; };
  fresh_parts();
  double centre_before = record_chi2;
  evolver::ClimbHooks hooks;
  hooks.progress = [&](const evolver::Climb& at, const evolver::ClimbStep& s) {
    tally(parts[s.pair ? 1 : 0], s.program, s.chi2, centre_before);
    const double took = seconds();
    std::printf("%s %zu/%zu %s %.10g (%.0f s)\n", s.pair ? "two" : "one", s.index, s.count,
                mixer::format_short(s.program).c_str(), s.chi2, took);
    if (s.lower)
      std::printf("BETTER %s exact chi2 %.10g (interpreter %.10g)\n", mixer::format_short(s.program).c_str(), s.chi2,
                  *s.check);
    if (s.moved) {
      std::printf("MOVE to %s exact chi2 %.10g, %.3f %% below the centre before (%.0f s)\n",
                  mixer::format_short(s.program).c_str(), s.chi2, 100 * (1 - s.chi2 / centre_before), took);
      fresh_parts();
    }
    centre_before = at.centre_chi2();
    std::fflush(stdout);
  };
  evolver::run_climb(
      c, [&](const mixer::Program& q) { return ev->exact(q).chi2; }, chi2, hooks);
  std::printf("around %s (exact chi2 %.10g):\n", mixer::format_short(c.centre()).c_str(), c.centre_chi2());
  for (const Part& p : parts)
    std::printf("  %-40s %9llu programs, %6llu better, best %.10g %s\n", p.name.c_str(),
                static_cast<unsigned long long>(p.programs), static_cast<unsigned long long>(p.better), p.best,
                mixer::format_short(p.best_program).c_str());
  if (climb) std::printf("  a local optimum of one and two moves (every program around it scored exactly)\n");
  const double took = seconds();
  std::printf("  %llu exact scores in %.1f s (%.2f s each, all cores)\n", static_cast<unsigned long long>(c.scored()),
              took, took / double(c.scored()));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 4 && (std::string(argv[1]) == "--moves" || std::string(argv[1]) == "--climb"))
    return moves(std::atoi(argv[2]), argv[3], argc > 4 ? argv[4] : nullptr, std::string(argv[1]) == "--climb");
  if (argc < 3) {
    std::fprintf(stderr, "usage: bench_record_neighbourhood [--moves|--climb] WIDTH 'PROGRAM' [CHI2]\n");
    return 2;
  }
  tbb::global_control one_thread(tbb::global_control::max_allowed_parallelism, 1);
  const int n = std::atoi(argv[1]);
  const mixer::Program record = mixer::parse_program(argv[2], mixer::ParseOptions{n});
  const double record_chi2 = chi2(record);
  if (argc > 3 && std::abs(record_chi2 - std::atof(argv[3])) > 1e-4 * record_chi2) {
    std::fprintf(stderr, "the record scores %.10g, not %s\n", record_chi2, argv[3]);
    return 1;
  }
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<mixer::Step>& steps = record.steps();
  const std::uint64_t mask = n >= 64 ? ~0ull : (1ull << n) - 1;
  std::vector<std::size_t> shifts, constants;
  for (std::size_t i = 0; i < steps.size(); ++i) (mixer::takes_shift(steps[i].kind) ? shifts : constants).push_back(i);
  std::vector<Part> parts;

  // Every combination of shift amounts.
  Part all_shifts{"all shift combinations"};
  std::vector<mixer::Step> s = steps;
  std::function<void(std::size_t)> walk = [&](std::size_t k) {
    if (k == shifts.size()) {
      consider(all_shifts, mixer::Program(n, s), record_chi2);
      return;
    }
    for (int v = 1; v < n; ++v) {
      s[shifts[k]].operand = static_cast<std::uint64_t>(v);
      walk(k + 1);
    }
  };
  double combinations = 1;
  for (std::size_t k = 0; k < shifts.size(); ++k) combinations *= n - 1;
  if (!shifts.empty() && combinations <= 2e5) {
    walk(0);
    parts.push_back(all_shifts);
  } else if (shifts.size() >= 2) {
    // Too many combinations: every value of every two shift amounts instead.
    Part two{"every two shift amounts"};
    for (std::size_t a = 0; a < shifts.size(); ++a)
      for (std::size_t b = a + 1; b < shifts.size(); ++b)
        for (int va = 1; va < n; ++va)
          for (int vb = 1; vb < n; ++vb) {
            std::vector<mixer::Step> t = steps;
            t[shifts[a]].operand = static_cast<std::uint64_t>(va);
            t[shifts[b]].operand = static_cast<std::uint64_t>(vb);
            consider(two, mixer::Program(n, t), record_chi2);
          }
    parts.push_back(two);
  }

  // Every value of one constant.
  for (std::size_t i : constants) {
    Part part{"every value of step " + std::to_string(i + 1) + " (" +
              std::string(mixer::kind_short_name(steps[i].kind)) + ")"};
    const bool odd = steps[i].kind == mixer::StepKind::mul_const;
    std::vector<mixer::Step> t = steps;
    for (std::uint64_t v = odd ? 1 : 0; v <= mask; v += odd ? 2 : 1) {
      t[i].operand = v;
      consider(part, mixer::Program(n, t), record_chi2);
      if (v == mask) break;
    }
    parts.push_back(part);
  }

  // Every pair of single-bit flips among the constants (multipliers keep bit 0).
  Part pairs{"every two bit flips in the constants"};
  std::vector<std::pair<std::size_t, int>> bits;
  for (std::size_t i : constants)
    for (int b = steps[i].kind == mixer::StepKind::mul_const ? 1 : 0; b < n; ++b) bits.emplace_back(i, b);
  for (std::size_t a = 0; a < bits.size(); ++a)
    for (std::size_t b = a + 1; b < bits.size(); ++b) {
      std::vector<mixer::Step> t = steps;
      t[bits[a].first].operand ^= std::uint64_t{1} << bits[a].second;
      t[bits[b].first].operand ^= std::uint64_t{1} << bits[b].second;
      consider(pairs, mixer::Program(n, t), record_chi2);
    }
  if (pairs.programs > 0) parts.push_back(pairs);  // a program without constants has none

  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("record %s  exact chi2 %.10g\n", mixer::format_short(record).c_str(), record_chi2);
  std::uint64_t total = 0;
  for (const Part& p : parts) {
    total += p.programs;
    std::printf("  %-40s %9llu programs, %6llu better, best %.10g %s\n", p.name.c_str(),
                static_cast<unsigned long long>(p.programs), static_cast<unsigned long long>(p.better), p.best,
                p.better ? mixer::format_short(p.best_program).c_str() : "");
  }
  std::printf("  %llu exact scores in %.1f s (%.0f/s, one thread)\n", static_cast<unsigned long long>(total), took,
              double(total) / took);
  return 0;
}
