#pragma once
// Compile-and-release cycles with the resident set size measured before and after.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <random>
#include <string>

#include "jit/engine.hpp"
#include "support/random_program.hpp"

namespace mixforge::jit {

// Resident set size in KiB (Linux /proc), or -1 where /proc/self/status has no VmRSS.
inline long rss_kib() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  return -1;
}

// Every cycle compiles new programs (single compiles and 2-program batches, widths 1..64)
// and drops them (the engine keeps its default ring of recent kernels); RSS growth after
// a warm-up must stay under max_growth_kib. Skips (visibly) where RSS cannot be read: a
// growth of "-1 - -1" would pass without measuring anything.
inline void expect_flat_memory(int warm_up, int cycles, long max_growth_kib) {
  if (rss_kib() < 0) GTEST_SKIP() << "cannot read VmRSS from /proc/self/status: memory growth not measured";
  Engine engine;
  std::mt19937_64 rng(8);
  auto program = [&](int width) { return testing::random_program(rng, width, 5); };
  // Warm up allocator pools and LLVM's per-process state first.
  for (int i = 0; i < warm_up; ++i) engine.compile(program(32), parts_diffs);
  const long start = rss_kib();
  for (int i = 0; i < cycles; ++i) {
    if (i % 2 == 0) {
      auto k = engine.compile(program(1 + static_cast<int>(rng() % 64)), parts_diffs);
      ASSERT_EQ(k->parts(), unsigned{parts_diffs});
    } else {
      std::vector<mixer::Program> batch{program(32), program(64)};
      auto ks = engine.compile_batch(batch, parts_diffs);
      ASSERT_EQ(ks.size(), 2u);
    }
  }
  const long end = rss_kib();
  ASSERT_GT(start, 0) << "VmRSS unreadable after the warm-up";
  ASSERT_GT(end, 0) << "VmRSS unreadable after the cycles";
  const EngineStats s = engine.stats();
  std::printf("RSS after warm-up %ld KiB, after %d compile/release cycles %ld KiB (growth %ld KiB); "
              "%llu modules, %.1f s compiling\n",
              start, cycles, end, end - start, static_cast<unsigned long long>(s.modules),
              s.compile_seconds);
  // Only the engine's ring of recent kernels is still alive.
  EXPECT_LE(s.live_kernels, engine.options().keep_recent);
  EXPECT_LE(s.live_modules, engine.options().keep_recent);
  EXPECT_LT(end - start, max_growth_kib) << "memory grows with compiled-and-released kernels";
}

}  // namespace mixforge::jit
