// Compile time per program: single programs vs batches, per pipeline setting. Every
// iteration compiles new (uncached) 5-step 32-bit programs and releases them.
#include <benchmark/benchmark.h>

#include <ctime>
#include <random>

#include "jit/engine.hpp"

namespace {

using namespace mixforge;

// xsr, mul, xsr, mul, xsr: the classic 5-step shape, fresh constants each call.
mixer::Program fresh_program(std::mt19937_64& rng) {
  auto shift = [&] { return 10 + rng() % 10; };
  auto odd = [&] { return (rng() & 0xffffffffu) | 1; };
  return mixer::Program(32, {{mixer::StepKind::xorshift_right, shift()},
                             {mixer::StepKind::mul_const, odd()},
                             {mixer::StepKind::xorshift_right, shift()},
                             {mixer::StepKind::mul_const, odd()},
                             {mixer::StepKind::xorshift_right, shift()}});
}

void compile_programs(benchmark::State& state) {
  const int ir = static_cast<int>(state.range(0));
  const int cg = static_cast<int>(state.range(1));
  const auto batch = static_cast<std::size_t>(state.range(2));
  const auto parts = static_cast<unsigned>(state.range(3));
  jit::Engine engine(jit::EngineOptions{ir, cg});
  std::mt19937_64 rng(1);
  std::vector<mixer::Program> programs(batch);
  std::uint64_t compiled = 0;
  const auto start = std::clock();
  for (auto _ : state) {
    for (auto& p : programs) p = fresh_program(rng);
    if (batch == 1) {
      benchmark::DoNotOptimize(engine.compile(programs[0], parts));
    } else {
      benchmark::DoNotOptimize(engine.compile_batch(programs, parts));
    }
    compiled += batch;
  }
  // Process CPU time: the machine is shared, so wall time says less.
  const double cpu_ms = 1e3 * static_cast<double>(std::clock() - start) / CLOCKS_PER_SEC;
  state.counters["cpu_ms_per_program"] = cpu_ms / static_cast<double>(compiled);
  state.SetLabel("ir O" + std::to_string(ir) + " codegen O" + std::to_string(cg) + " batch " +
                 std::to_string(batch) + (parts == jit::parts_diffs ? " diffs only" : " all parts"));
}

BENCHMARK(compile_programs)
    ->ArgsProduct({{0, 1, 2}, {0, 1, 2}, {1, 16}, {jit::parts_diffs, jit::parts_all}})
    ->Unit(benchmark::kMillisecond)
    ->MinTime(0.3)
    ->MeasureProcessCPUTime();

}  // namespace

BENCHMARK_MAIN();
