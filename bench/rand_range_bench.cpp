// bench_rand_range: uniformity of rand_range(seed, r) over all 2^32 seeds, for the 16.16
// fraction method and the jitter-corrected one (docs/background.md), then the cost of
// each (Google Benchmark, jitter against fraction as the baseline).
//
// Usage: bench_rand_range [--program TEXT] [--skip-uniformity] [benchmark flags]
// The hash defaults to the write-up's 32-bit jitter lane (xsr 16, mul 322022693, xsr 14,
// mul 3968764237, xsr 19). Any 32-bit mixing program is a bijection, so over all 2^32
// seeds the histogram does not depend on which program is used; the run checks that
// by really hashing every seed.
#include <benchmark/benchmark.h>
#include <tbb/blocked_range.h>
#include <tbb/combinable.h>
#include <tbb/parallel_for.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "mixer/interpreter.hpp"
#include "mixer/text_form.hpp"
#include "shader/ranged.hpp"

namespace {

using mixforge::mixer::Program;
using mixforge::mixer::StepKind;
using mixforge::shader::RangeMethod;

constexpr std::uint32_t ranges[] = {3, 7, 100, 1000, 65535};
constexpr int n_ranges = sizeof ranges / sizeof ranges[0];

mixforge::mixer::Program writeup_jitter_lane() {
  return mixforge::mixer::Program(32, {{mixforge::mixer::StepKind::xorshift_right, 16},
                                       {mixforge::mixer::StepKind::mul_const, 322022693},
                                       {mixforge::mixer::StepKind::xorshift_right, 14},
                                       {mixforge::mixer::StepKind::mul_const, 3968764237u},
                                       {mixforge::mixer::StepKind::xorshift_right, 19}});
}

struct Histograms {
  // [method][range] -> counts
  std::vector<std::uint64_t> h[2][n_ranges];
  Histograms() {
    for (auto& m : h)
      for (int i = 0; i < n_ranges; ++i) m[i].assign(ranges[i], 0);
  }
};

// Wilson-Hilferty: chi2 with k degrees of freedom -> approximately standard normal.
double wilson_hilferty_z(double chi2, double k) {
  const double a = 2.0 / (9.0 * k);
  return (std::cbrt(chi2 / k) - (1.0 - a)) / std::sqrt(a);
}

void uniformity(const mixforge::mixer::Program& p) {
  std::printf("rand_range uniformity over all 2^32 seeds; hash: %s (width %d)\n",
              mixforge::mixer::format_short(p).c_str(), p.width());
  const auto t0 = std::chrono::steady_clock::now();
  tbb::combinable<Histograms> local;
  constexpr std::uint64_t block = 1u << 20;
  tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, (std::uint64_t{1} << 32) / block),
                    [&](const tbb::blocked_range<std::uint64_t>& br) {
                      Histograms& hs = local.local();
                      for (std::uint64_t b = br.begin(); b != br.end(); ++b)
                        for (std::uint64_t s = b * block; s < (b + 1) * block; ++s) {
                          const auto h = static_cast<std::uint32_t>(mixforge::mixer::apply(p, s));
                          for (int i = 0; i < n_ranges; ++i) {
                            ++hs.h[0][i][mixforge::shader::rand_range_fraction(h, ranges[i])];
                            ++hs.h[1][i][mixforge::shader::rand_range_jitter(h, ranges[i])];
                          }
                        }
                    });
  Histograms total;
  local.combine_each([&](const Histograms& hs) {
    for (int m = 0; m < 2; ++m)
      for (int i = 0; i < n_ranges; ++i)
        for (std::size_t k = 0; k < hs.h[m][i].size(); ++k) total.h[m][i][k] += hs.h[m][i][k];
  });
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("(%.1f s on %d threads)\n\n", secs, tbb::this_task_arena::max_concurrency());
  std::printf("%-8s %6s %16s %8s %12s %10s %12s %12s %14s\n", "method", "r", "chi2", "dof", "chi2/dof",
              "z (W-H)", "min count", "max count", "max rel. dev");
  for (int m = 0; m < 2; ++m)
    for (int i = 0; i < n_ranges; ++i) {
      const double expected = 4294967296.0 / ranges[i];
      double chi2 = 0;
      std::uint64_t lo = ~std::uint64_t{0}, hi = 0;
      for (std::uint64_t c : total.h[m][i]) {
        const double d = static_cast<double>(c) - expected;
        chi2 += d * d / expected;
        lo = std::min(lo, c);
        hi = std::max(hi, c);
      }
      const double dof = ranges[i] - 1.0;
      const double dev = std::max(expected - static_cast<double>(lo), static_cast<double>(hi) - expected) / expected;
      std::printf("%-8s %6u %16.6g %8.0f %12.6g %10.3g %12llu %12llu %14.3g\n",
                  m == 0 ? "fraction" : "jitter", ranges[i], chi2, dof, chi2 / dof, wilson_hilferty_z(chi2, dof),
                  static_cast<unsigned long long>(lo), static_cast<unsigned long long>(hi), dev);
    }
  std::printf("\nchi2/dof near 1 (|z| < ~3) is what an ideal random source gives; a perfectly\n"
              "even histogram gives chi2 = 0.\n\n");
}

// Cost per call of each method on precomputed hashes (the hash itself is not timed).
std::vector<std::uint32_t> hashes() {
  std::vector<std::uint32_t> v(1 << 16);
  const mixforge::mixer::Program p = writeup_jitter_lane();
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<std::uint32_t>(mixforge::mixer::apply(p, i));
  return v;
}

template <RangeMethod M>
void BM_rand_range(benchmark::State& state) {
  const auto h = hashes();
  const auto r = static_cast<std::uint32_t>(state.range(0));
  for (auto _ : state) {
    std::uint32_t acc = 0;
    for (std::uint32_t x : h) acc += mixforge::shader::rand_range(M, x, r);
    benchmark::DoNotOptimize(acc);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * h.size()));
}
// r is a run-time value on the GPU (per-call argument), so it is opaque here too.
BENCHMARK(BM_rand_range<RangeMethod::fraction>)->Name("fraction (baseline)")->Arg(1000);
BENCHMARK(BM_rand_range<RangeMethod::jitter>)->Name("jitter")->Arg(1000);

}  // namespace

int main(int argc, char** argv) {
  mixforge::mixer::Program p = writeup_jitter_lane();
  bool skip = false;
  std::vector<char*> rest{argv[0]};
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--skip-uniformity")) {
      skip = true;
    } else if (!std::strcmp(argv[i], "--program") && i + 1 < argc) {
      try {
        p = mixforge::mixer::parse_program(argv[++i]);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_rand_range: --program: %s\n", e.what());
        return 2;
      }
      if (p.width() != 32) {
        std::fprintf(stderr, "bench_rand_range: --program must be a 32-bit program\n");
        return 2;
      }
    } else {
      rest.push_back(argv[i]);
    }
  }
  if (!skip) uniformity(p);
  int n = static_cast<int>(rest.size());
  benchmark::Initialize(&n, rest.data());
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
