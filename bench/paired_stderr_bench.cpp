// bench_paired_stderr: how much of two programs' sampling noise do common samples share?
// Local search compares a neighbour with its centre on the same inputs and takes the
// independent bound (hypot of the two scores' own errors) as the difference's error. This
// measures the true spread of the difference, the bound's ratio to it, and a jackknife
// estimate over the 32 sample groups (is it calibrated, and would it be tighter?).
//
// For each centre (32 bits, poor to good) and each of its neighbours (a multiplier's top
// or low bit flipped, a shift +1), K sample streams (seeds 1..K) of N samples: both
// programs counted on the same stream, in the same 32 groups. Per row: the spread (SD) of
// the K differences, the mean jackknife stderr, their ratio (1 when calibrated), and the
// mean independent bound over the SD (how generous it is). Single thread.
//
//   bench_paired_stderr [K (default 40)] [log2 N list (default 20,22)]
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "avalanche/evaluator.hpp"
#include "avalanche/stats/chi_square.hpp"
#include "avalanche/count/grouped_counts.hpp"
#include "mixer/text_form.hpp"

namespace {

using namespace mixforge;

struct Centre {
  const char* name;
  mixer::Program program;
};

// The difference of two programs' noise-corrected chi2 on the same samples in the same
// groups, with its jackknife standard error over the groups (each group left out in turn;
// (G - 1) / G times the spread of the G values).
struct PairedDifference {
  double diff = 0, stderr = 0;
};

double corrected_without(const avalanche::AvalancheCounts& pooled, const avalanche::AvalancheCounts& g,
                         avalanche::AvalancheCounts& scratch) {
  scratch.trials = pooled.trials - g.trials;
  for (std::size_t c = 0; c < pooled.flips.size(); ++c) scratch.flips[c] = pooled.flips[c] - g.flips[c];
  return avalanche::score(scratch).chi2_corrected;
}

PairedDifference paired_difference(const avalanche::GroupedCounts& a, const avalanche::GroupedCounts& b) {
  PairedDifference out;
  out.diff = a.score().chi2_corrected - b.score().chi2_corrected;
  std::vector<double> loo;
  avalanche::AvalancheCounts scratch = avalanche::AvalancheCounts::zero(a.width(), false);
  for (int g = 0; g < a.groups(); ++g) {
    if (a.group(g).trials != b.group(g).trials) throw std::logic_error("not the same samples");
    if (a.group(g).trials == 0) continue;
    loo.push_back(corrected_without(a.pooled(), a.group(g), scratch) -
                  corrected_without(b.pooled(), b.group(g), scratch));
  }
  const double used = static_cast<double>(loo.size());
  double m = 0, ss = 0;
  for (double d : loo) m += d;
  m /= used;
  for (double d : loo) ss += (d - m) * (d - m);
  out.stderr = std::sqrt((used - 1) / used * ss);
  return out;
}

mixer::Program with_operand(const mixer::Program& p, std::size_t step, std::uint64_t operand) {
  std::vector<mixer::Step> s = p.steps();
  s[step].operand = operand;
  return mixer::Program(p.width(), std::move(s));
}

double sd(const std::vector<double>& v) {
  double m = 0;
  for (double x : v) m += x;
  m /= double(v.size());
  double ss = 0;
  for (double x : v) ss += (x - m) * (x - m);
  return std::sqrt(ss / double(v.size() - 1));
}

double mean(const std::vector<double>& v) {
  double m = 0;
  for (double x : v) m += x;
  return m / double(v.size());
}

}  // namespace

int main(int argc, char** argv) {
  const int k = argc > 1 ? std::atoi(argv[1]) : 40;
  std::vector<int> log2n{20, 22};
  if (argc > 2) {
    log2n.clear();
    std::stringstream ss(argv[2]);
    for (std::string t; std::getline(ss, t, ',');) log2n.push_back(std::stoi(t));
  }
  const auto ev = avalanche::Evaluator::with_own_engine();
  const std::vector<Centre> centres{
      {"poor", mixer::parse_program("x ^= x >> 16; x *= 0x93a9b5; x ^= x >> 11; x *= 0x000f05; x ^= x >> 12;")},
      {"fair", mixer::parse_program("x ^= x >> 15; x *= 0x9a8d092d; x ^= x >> 12; x *= 0x9322a6c7; x ^= x >> 16;")},
      {"lowbias32",
       mixer::parse_program("x ^= x >> 16; x *= 0x7feb352d; x ^= x >> 15; x *= 0x846ca68b; x ^= x >> 16;")},
      // A 2-round function of hash-prospector issue 19; not the best published one (735a2d97).
      // Named "record" until issue 51 (bench/results/stderr/paired.txt of 2026-11-29 still is).
      {"f35a2d97", mixer::parse_program("x ^= x >> 16; x *= 0x21f0aaad; x ^= x >> 15; x *= 0xf35a2d97; x ^= x >> 15;")},
  };
  std::printf("# bench_paired_stderr: K = %d streams per row, 32 groups, one thread\n", k);
  std::printf("%-10s %-14s %5s %12s %12s %12s %8s %8s\n", "centre", "neighbour", "log2N", "mean diff", "SD diff",
              "jackknife", "SD/jk", "bound/SD");
  for (const Centre& c : centres) {
    const mixer::Program& p = c.program;
    const std::vector<std::pair<std::string, mixer::Program>> around{
        {"mul1 bit 31", with_operand(p, 1, p.steps()[1].operand ^ (1u << 31))},
        {"mul1 bit 1", with_operand(p, 1, p.steps()[1].operand ^ 2u)},
        {"mul2 bit 16", with_operand(p, 3, p.steps()[3].operand ^ (1u << 16))},
        {"shift2 +1", with_operand(p, 2, p.steps()[2].operand + 1)},
    };
    for (int ln : log2n) {
      const std::uint64_t n = std::uint64_t{1} << ln;
      std::vector<std::vector<double>> diffs(around.size()), jk(around.size()), bound(around.size());
      for (int s = 1; s <= k; ++s) {
        avalanche::GroupedCounts base(p.width());
        ev->extend_sampled(base, p, static_cast<std::uint64_t>(s), n);
        const avalanche::Score bs = base.score();
        for (std::size_t a = 0; a < around.size(); ++a) {
          avalanche::GroupedCounts q(p.width());
          ev->extend_sampled(q, around[a].second, static_cast<std::uint64_t>(s), n);
          const PairedDifference d = paired_difference(q, base);
          diffs[a].push_back(d.diff);
          jk[a].push_back(d.stderr);
          bound[a].push_back(std::hypot(q.score().chi2_stderr, bs.chi2_stderr));
        }
      }
      for (std::size_t a = 0; a < around.size(); ++a) {
        const double spread = sd(diffs[a]);
        std::printf("%-10s %-14s %5d %12.4e %12.4e %12.4e %8.2f %8.2f\n", c.name, around[a].first.c_str(), ln,
                    mean(diffs[a]), spread, mean(jk[a]), spread / mean(jk[a]), mean(bound[a]) / spread);
      }
      std::fflush(stdout);
    }
  }
  return 0;
}
