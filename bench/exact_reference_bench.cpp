// bench_exact_reference: the exact 32-bit avalanche score of lowbias32 by mixforge's JIT
// against a plain multithreaded reference loop, alternating in the same run (issue 52
// part 5, "the exact 32-bit score is N x a plain multithreaded reference loop").
//
// The ratio it prints is defined as
//     (wall seconds of the reference loop) / (wall seconds of the JIT path)
// both over all 2^32 inputs, on all threads (std::thread::hardware_concurrency), in the
// same process, alternating round by round, each side's counts checked equal to the other's
// (so the same chi2). The JIT path is what `mixforge eval` does for an exact score: compile
// the program's tile kernel in a fresh engine (compile included) and count
// (avalanche::jit_counts_exact: pair symmetry, tiles, bit-sliced AVX-512 counting).
//
// The reference loops, lowbias32 written as C++ and inlined, this file compiled with -O3
// -march=native (bench/CMakeLists.txt), every x in 0 .. 2^32 - 1 in chunks of 2^16 handed
// to the threads by an atomic counter, per-thread 64-bit counters summed at the end:
//   perbit  the obvious loop, popcount-free per-bit increments: for every x, h = f(x); for
//           every input bit i, d = h ^ f(x ^ 2^i); for every output bit j,
//           count[i][j] += (d >> j) & 1. 33 hashes per x; GCC vectorises the j loop.
//   pairs   the same loop with the one trick the definition invites: the pair {x, x ^ 2^i}
//           gives the same d from both sides, so it is hashed and counted once, from the
//           side with bit i clear, with weight 2 (17 hashes per x on average).
// Neither is bit-sliced (the JIT path is); both are what a competent programmer writes
// first and lets the compiler vectorise.
//
//   bench_exact_reference [ROUNDS (default 2)] [VARIANTS (default perbit,pairs)] [LOG2_INPUTS]
// LOG2_INPUTS < 32 runs the reference loops on x < 2^LOG2_INPUTS only and scales their
// time by 2^(32 - LOG2_INPUTS) (printed as extrapolated; counts are then not compared).
#include <sys/resource.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "avalanche/stats/chi_square.hpp"
#include "avalanche/count/jit_counts.hpp"
#include "jit/engine.hpp"

namespace {

using namespace mixforge;

inline std::uint32_t lowbias32(std::uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}

const mixer::Program lowbias32_program(32, {{mixer::StepKind::xorshift_right, 16},
                                            {mixer::StepKind::mul_const, 0x7feb352d},
                                            {mixer::StepKind::xorshift_right, 15},
                                            {mixer::StepKind::mul_const, 0x846ca68b},
                                            {mixer::StepKind::xorshift_right, 16}});

struct Counts {
  std::uint64_t c[32][32] = {};
};

void count_perbit(std::uint64_t begin, std::uint64_t end, Counts& k) {
  for (std::uint64_t x64 = begin; x64 < end; ++x64) {
    const auto x = static_cast<std::uint32_t>(x64);
    const std::uint32_t h = lowbias32(x);
    for (int i = 0; i < 32; ++i) {
      const std::uint32_t d = h ^ lowbias32(x ^ (1u << i));
      for (int j = 0; j < 32; ++j) k.c[i][j] += (d >> j) & 1;
    }
  }
}

void count_pairs(std::uint64_t begin, std::uint64_t end, Counts& k) {
  for (std::uint64_t x64 = begin; x64 < end; ++x64) {
    const auto x = static_cast<std::uint32_t>(x64);
    const std::uint32_t h = lowbias32(x);
    for (int i = 0; i < 32; ++i) {
      if (x & (1u << i)) continue;
      const std::uint32_t d = h ^ lowbias32(x ^ (1u << i));
      for (int j = 0; j < 32; ++j) k.c[i][j] += 2 * ((d >> j) & 1);
    }
  }
}

double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         1e-6 * static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

struct Timed {
  avalanche::AvalancheCounts counts;
  double wall = 0, cpu = 0;
};

Timed reference(const std::string& variant, int log2_inputs) {
  const std::uint64_t total = std::uint64_t{1} << log2_inputs;
  const std::uint64_t chunk = std::min<std::uint64_t>(total, std::uint64_t{1} << 16);
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  std::atomic<std::uint64_t> next{0};
  std::vector<Counts> per_thread(threads);
  const double w0 = now(), c0 = cpu_seconds();
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      for (;;) {
        const std::uint64_t begin = next.fetch_add(chunk);
        if (begin >= total) return;
        if (variant == "perbit")
          count_perbit(begin, begin + chunk, per_thread[t]);
        else
          count_pairs(begin, begin + chunk, per_thread[t]);
      }
    });
  for (auto& th : pool) th.join();
  Timed r;
  r.wall = now() - w0;
  r.cpu = cpu_seconds() - c0;
  r.counts = avalanche::AvalancheCounts::zero(32, true);
  r.counts.trials = total;
  for (const Counts& k : per_thread)
    for (int i = 0; i < 32; ++i)
      for (int j = 0; j < 32; ++j) r.counts.flips[static_cast<std::size_t>(i) * 32 + j] += k.c[i][j];
  return r;
}

Timed jit_exact() {
  const double w0 = now(), c0 = cpu_seconds();
  jit::Engine engine;  // fresh: compile included, as `mixforge eval` pays it
  Timed r;
  r.counts = avalanche::jit_counts_exact(engine, lowbias32_program);
  r.wall = now() - w0;
  r.cpu = cpu_seconds() - c0;
  return r;
}

std::string load() {
  std::FILE* f = std::fopen("/proc/loadavg", "r");
  char buf[64] = {};
  if (f) {
    if (!std::fgets(buf, sizeof buf, f)) buf[0] = 0;
    std::fclose(f);
  }
  std::string s(buf);
  std::istringstream in(s);
  std::string a, b, c;
  in >> a >> b >> c;
  return a + " " + b + " " + c;
}

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 2;
  std::vector<std::string> variants;
  {
    std::istringstream in(argc > 2 ? argv[2] : "perbit,pairs");
    for (std::string v; std::getline(in, v, ',');) {
      if (v != "perbit" && v != "pairs") {
        std::fprintf(stderr, "bench_exact_reference: unknown variant %s (perbit, pairs)\n", v.c_str());
        return 2;
      }
      variants.push_back(v);
    }
  }
  const int log2_inputs = argc > 3 ? std::atoi(argv[3]) : 32;
  if (log2_inputs < 16 || log2_inputs > 32) {
    std::fprintf(stderr, "bench_exact_reference: LOG2_INPUTS must be 16..32\n");
    return 2;
  }
  const double scale = static_cast<double>(std::uint64_t{1} << (32 - log2_inputs));
  std::printf("# exact lowbias32, %u threads; reference loops on 2^%d inputs%s; load before: %s\n",
              std::thread::hardware_concurrency(), log2_inputs,
              log2_inputs < 32 ? " (times scaled to 2^32: extrapolated)" : "", load().c_str());
  std::printf("# round what wall_s cpu_s chi2 ratio(reference wall / JIT wall of the round)\n");
  bool same = true;
  for (int r = 1; r <= rounds; ++r) {
    // Alternate which side goes first.
    Timed j;
    std::vector<Timed> refs;
    if (r % 2) j = jit_exact();
    for (const std::string& v : variants) refs.push_back(reference(v, log2_inputs));
    if (!(r % 2)) j = jit_exact();
    std::printf("%d jit %.3f %.3f %.9e -\n", r, j.wall, j.cpu, avalanche::chi_square(j.counts));
    for (std::size_t k = 0; k < variants.size(); ++k) {
      const Timed& t = refs[k];
      const bool equal = log2_inputs == 32 && t.counts.flips == j.counts.flips;
      if (log2_inputs == 32 && !equal) same = false;
      char chi2[64] = "-";
      if (log2_inputs == 32)
        std::snprintf(chi2, sizeof chi2, "%.9e%s", avalanche::chi_square(t.counts), equal ? "" : "(COUNTS-DIFFER)");
      std::printf("%d %s %.3f %.3f %s %.3f%s\n", r, variants[k].c_str(), t.wall * scale, t.cpu * scale, chi2,
                  t.wall * scale / j.wall, log2_inputs < 32 ? " (extrapolated)" : "");
    }
    std::printf("# load after round %d: %s\n", r, load().c_str());
    std::fflush(stdout);
  }
  if (!same) {
    std::printf("# the reference's counts differ from the JIT's\n");
    return 1;
  }
  return 0;
}
