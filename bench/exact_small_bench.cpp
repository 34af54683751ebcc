// bench_exact_small: exact avalanche scores of fresh (never seen) programs at small widths,
// the work of an exact-mode search, on one thread. Three ways, measured in the same run:
//   per-neighbour interpreter  interpreted_counts_exact_range: each input hashed with its
//                              n neighbours (n + 1 hashes per input; the runs' small-work
//                              path before the tiled interpreter)
//   JIT                        compile the program's tile kernel, then count (what a run's
//                              main evaluator does; compile included, as every program is new)
//   tiled interpreter          interpreted_counts_exact: every input hashed once, 16 lanes
//                              at a time, pairs counted by the SIMD kernels (no compile)
// Programs: xsr, mul, xsr, mul, xsr with random shifts and odd multipliers (the record
// arena's shape). Counts of the three are checked equal. Prints scores/s per width and the
// ratios against the per-neighbour interpreter and the JIT.
//
//   bench_exact_small [seconds per cell (default 2)] [widths, default 12,16,20,24]
#include <tbb/global_control.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "avalanche/count/exact_counter.hpp"
#include "avalanche/count/interpreted_counter.hpp"
#include "avalanche/count/jit_counts.hpp"
#include "jit/engine.hpp"

namespace {

using namespace mixforge;

mixer::Program fresh_program(int n, std::mt19937_64& rng) {
  const std::uint64_t mask = n == 64 ? ~0ull : (1ull << n) - 1;
  auto shift = [&] { return 1 + rng() % static_cast<std::uint64_t>(n - 1); };
  auto odd = [&] { return (rng() & mask) | 1; };
  return mixer::Program(n, {{mixer::StepKind::xorshift_right, shift()},
                            {mixer::StepKind::mul_const, odd()},
                            {mixer::StepKind::xorshift_right, shift()},
                            {mixer::StepKind::mul_const, odd()},
                            {mixer::StepKind::xorshift_right, shift()}});
}

template <class Count>
double rate(int n, double seconds, Count count) {
  std::mt19937_64 rng(12345 + n);
  const auto t0 = std::chrono::steady_clock::now();
  std::uint64_t done = 0;
  double took = 0;
  do {
    const avalanche::AvalancheCounts c = count(fresh_program(n, rng));
    if (c.flips.empty()) std::abort();
    ++done;
    took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  } while (took < seconds);
  return double(done) / took;
}

}  // namespace

int main(int argc, char** argv) {
  const double seconds = argc > 1 ? std::atof(argv[1]) : 2.0;
  std::vector<int> widths = {12, 16, 20, 24};
  if (argc > 2) {
    widths.clear();
    std::stringstream ss(argv[2]);
    for (std::string w; std::getline(ss, w, ',');) widths.push_back(std::stoi(w));
  }
  tbb::global_control one_thread(tbb::global_control::max_allowed_parallelism, 1);
  jit::Engine engine;
  // Same counts from all three, on a few programs per width.
  for (int n : widths) {
    std::mt19937_64 rng(99 + n);
    for (int k = 0; k < 3; ++k) {
      const mixer::Program p = fresh_program(n, rng);
      const avalanche::AvalancheCounts tiled = avalanche::interpreted_counts_exact(p);
      if (tiled.flips != avalanche::jit_counts_exact(engine, p).flips ||
          (n <= 20 && tiled.flips != avalanche::interpreted_counts_exact_range(p, 0, std::uint64_t{1} << n).flips)) {
        std::fprintf(stderr, "counts differ at width %d\n", n);
        return 1;
      }
    }
  }
  std::printf("exact scores of fresh 5-step programs per second, one thread (%.1f s a cell)\n", seconds);
  std::printf("%5s %16s %12s %12s %10s %10s\n", "width", "per-neighbour", "JIT", "tiled", "x neighb.", "x JIT");
  for (int n : widths) {
    const double neighbour =
        n <= 20 ? rate(n, seconds,
                       [](const mixer::Program& p) {
                         return avalanche::interpreted_counts_exact_range(p, 0, std::uint64_t{1} << p.width());
                       })
                : 0;
    const double jit =
        rate(n, seconds, [&](const mixer::Program& p) { return avalanche::jit_counts_exact(engine, p); });
    const double tiled =
        rate(n, seconds, [](const mixer::Program& p) { return avalanche::interpreted_counts_exact(p); });
    if (neighbour > 0)
      std::printf("%5d %16.1f %12.1f %12.1f %10.2f %10.2f\n", n, neighbour, jit, tiled, tiled / neighbour, tiled / jit);
    else
      std::printf("%5d %16s %12.1f %12.1f %10s %10.2f\n", n, "-", jit, tiled, "-", tiled / jit);
  }
  return 0;
}
