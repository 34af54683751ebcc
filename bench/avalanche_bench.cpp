// bench_avalanche: the JIT scoring paths against the reference interpreter, measured in
// the same run.
//   exact/*    exact counts of lowbias32 (all 2^32 inputs); the interpreter's time is
//              extrapolated from 2^20 inputs.
//   sampled/*  sampled scoring throughput at N = 2^20 INCLUDING compilation: fresh
//              (uncached) 5-step 32-bit programs, compiled and scored on 2 threads; the
//              interpreter's per-program time is extrapolated from 2^12 samples.
//   small_work/* one small sampled score (2^8 .. 2^14 samples): the reference loops, the
//              interpreted counter and the JIT (compile included), one thread: where a
//              run's small-work limit belongs.
//   counting/* the exact counting kernels alone (one thread, a random 2^16-word tile, all
//              16 local directions), per instruction set this CPU runs, against the
//              baseline x86-64 build.
// Wall time is what counts on a quiet machine. This one is shared, so the summary also
// gives CPU-time figures: "2-core equivalent" = the rate if both cores were ours
// (process CPU seconds spread over 2 cores), for the JIT and the interpreter alike.
#include <benchmark/benchmark.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "avalanche/stats/chi_square.hpp"
#include "avalanche/count/counting_kernels.hpp"
#include "avalanche/evaluator.hpp"
#include "avalanche/count/exact_counter.hpp"
#include "avalanche/count/interpreted_counter.hpp"
#include "avalanche/count/jit_counts.hpp"
#include "avalanche/count/reference_counts.hpp"
#include "avalanche/count/sampled_counter.hpp"
#include "jit/engine.hpp"

namespace {

using namespace mixforge;

const mixer::Program lowbias32(32, {{mixer::StepKind::xorshift_right, 16},
                                    {mixer::StepKind::mul_const, 0x7feb352d},
                                    {mixer::StepKind::xorshift_right, 15},
                                    {mixer::StepKind::mul_const, 0x846ca68b},
                                    {mixer::StepKind::xorshift_right, 16}});

mixer::Program fresh_program(std::mt19937_64& rng) {
  auto shift = [&] { return 10 + rng() % 10; };
  auto odd = [&] { return (rng() & 0xffffffffu) | 1; };
  return mixer::Program(32, {{mixer::StepKind::xorshift_right, shift()},
                             {mixer::StepKind::mul_const, odd()},
                             {mixer::StepKind::xorshift_right, shift()},
                             {mixer::StepKind::mul_const, odd()},
                             {mixer::StepKind::xorshift_right, shift()}});
}

std::map<std::string, double> results;  // seconds (or programs/s), for the summary
std::map<std::string, std::pair<double, double>> sampled_rates;  // wall, 2-core equivalent

struct Timer {
  std::chrono::steady_clock::time_point wall = std::chrono::steady_clock::now();
  std::clock_t cpu = std::clock();
  double wall_s() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - wall).count();
  }
  double cpu_s() const { return static_cast<double>(std::clock() - cpu) / CLOCKS_PER_SEC; }
};

void exact_jit(benchmark::State& state) {
  jit::Engine engine;
  auto kernel = engine.compile(lowbias32, jit::parts_tile);
  double wall = 0, cpu = 0;
  for (auto _ : state) {
    Timer t;
    avalanche::AvalancheCounts c = avalanche::exact_counts(*kernel);
    wall += t.wall_s();
    cpu += t.cpu_s();
    state.counters["chi2"] = avalanche::chi_square(c);
  }
  const auto n = static_cast<double>(state.iterations());
  state.counters["cpu_s"] = cpu / n;
  results["exact_jit_s"] = wall / n;
  results["exact_jit_cpu_s"] = cpu / n;
}

void exact_interpreter(benchmark::State& state) {
  const std::uint64_t subset = std::uint64_t{1} << 20;
  double wall = 0, cpu = 0;
  for (auto _ : state) {
    Timer t;
    benchmark::DoNotOptimize(avalanche::reference_counts_exact_range(lowbias32, 12345678, subset));
    wall += t.wall_s();
    cpu += t.cpu_s();
  }
  // One thread; the exact evaluator runs on 2 cores, so extrapolate for 2 ideal threads.
  const double inputs = static_cast<double>(state.iterations()) * static_cast<double>(subset);
  state.counters["ns_per_input"] = wall / inputs * 1e9;
  results["exact_interpreter_s"] = wall / inputs * 4294967296.0 / 2;
  results["exact_interpreter_cpu_s"] = cpu / inputs * 4294967296.0;
}

constexpr std::uint64_t sampled_n = std::uint64_t{1} << 20;

void sampled_jit(benchmark::State& state) {
  const int codegen = static_cast<int>(state.range(0));
  const auto batch = static_cast<std::size_t>(state.range(1));
  const std::uint64_t samples = std::uint64_t{1} << state.range(2);
  jit::Engine engine(jit::EngineOptions{0, codegen});
  std::mt19937_64 rng(state.range(0) * 100 + state.range(1));
  const std::size_t per_iteration = 32;
  double wall = 0, cpu = 0;
  std::uint64_t scored = 0;
  for (auto _ : state) {
    std::vector<mixer::Program> programs(per_iteration);
    for (auto& p : programs) p = fresh_program(rng);
    Timer t;
    tbb::parallel_for(std::size_t{0}, per_iteration / batch, [&](std::size_t b) {
      auto kernels = engine.compile_batch(std::span(programs).subspan(b * batch, batch), jit::parts_diffs);
      for (auto& k : kernels) benchmark::DoNotOptimize(avalanche::sampled_counts(*k, 1, 0, samples));
    });
    wall += t.wall_s();
    cpu += t.cpu_s();
    scored += per_iteration;
  }
  const double rate = static_cast<double>(scored) / wall;
  state.counters["programs_per_s"] = rate;
  state.counters["cpu_ms_per_program"] = 1e3 * cpu / static_cast<double>(scored);
  const std::string name = "N=2^" + std::to_string(state.range(2)) + ", codegen O" +
                           std::to_string(codegen) + ", batch " + std::to_string(batch);
  state.SetLabel(name);
  sampled_rates[name] = {rate, 2 * static_cast<double>(scored) / cpu};
}

// The scoring alone (kernel compiled once), one thread: where the time goes.
void sampled_jit_run_only(benchmark::State& state) {
  jit::Engine engine(jit::EngineOptions{0, static_cast<int>(state.range(0))});
  state.SetLabel("codegen O" + std::to_string(state.range(0)));
  auto kernel = engine.compile(lowbias32, jit::parts_diffs);
  double cpu = 0;
  for (auto _ : state) {
    Timer t;
    benchmark::DoNotOptimize(avalanche::sampled_counts(*kernel, 1, 0, sampled_n));
    cpu += t.cpu_s();
  }
  state.counters["cpu_ms"] = 1e3 * cpu / static_cast<double>(state.iterations());
}

void sampled_interpreter(benchmark::State& state) {
  const std::uint64_t subset = std::uint64_t{1} << 12;
  std::mt19937_64 rng(9);
  double wall = 0, cpu = 0;
  for (auto _ : state) {
    const mixer::Program p = fresh_program(rng);
    Timer t;
    benchmark::DoNotOptimize(avalanche::reference_counts_sampled(p, 1, 0, subset));
    wall += t.wall_s();
    cpu += t.cpu_s();
  }
  const double scale = static_cast<double>(sampled_n / subset) / static_cast<double>(state.iterations());
  state.counters["s_per_program"] = wall * scale;
  results["sampled_interpreter_rate"] = 2 / (wall * scale);  // 2 ideal threads
  results["sampled_interpreter_cpu_rate"] = 2 / (cpu * scale);
}

// Small scoring tasks, where a run picks the interpreter or a kernel (evolver/run/run.hpp,
// small_work_limit in step evaluations = samples x (n + 1) x steps): one fresh 5-step
// 32-bit program at a time, one thread, 2^range(0) samples; range(1): 0 the reference
// loops, 1 the interpreted counter (what the runs use), 2 the JIT evaluator (compile
// included, as a run pays it).
std::map<std::pair<int, int>, double> small_ms;  // (log2 samples, path) -> ms per program
std::map<std::pair<std::int64_t, bool>, double> fold_us;  // (samples, reference) -> us for 32 counters

void small_work(benchmark::State& state) {
  static const std::unique_ptr<avalanche::Evaluator> jit_evaluator = avalanche::Evaluator::with_own_engine();
  const int log2n = static_cast<int>(state.range(0));
  const int path = static_cast<int>(state.range(1));
  const std::uint64_t samples = std::uint64_t{1} << log2n;
  std::mt19937_64 rng(1000 + log2n);
  double wall = 0;
  for (auto _ : state) {
    const mixer::Program p = fresh_program(rng);
    Timer t;
    if (path == 0) benchmark::DoNotOptimize(avalanche::reference_counts_sampled(p, 1, 0, samples));
    if (path == 1) benchmark::DoNotOptimize(avalanche::interpreted_counts_sampled(p, 1, 0, samples));
    if (path == 2) benchmark::DoNotOptimize(jit_evaluator->counts_sampled(p, 1, 0, samples));
    wall += t.wall_s();
  }
  const double ms = 1e3 * wall / static_cast<double>(state.iterations());
  state.counters["ms_per_program"] = ms;
  state.SetLabel(std::string(path == 0 ? "reference loops" : path == 1 ? "interpreted counter" : "JIT") +
                 ", N=2^" + std::to_string(log2n));
  small_ms[{log2n, path}] = ms;
}

// The counting kernels of one instruction set: 0 baseline, 1 AVX2, 2 AVX-512.
void counting(benchmark::State& state) {
  const avalanche::counting::CountingKernels* k = state.range(0) == 0 ? &avalanche::counting::generic_counting_kernels()
                                                  : state.range(0) == 1
                                                      ? avalanche::counting::avx2_counting_kernels()
                                                      : avalanche::counting::avx512_counting_kernels();
  if (!k) {
    state.SkipWithError("this CPU does not run these kernels");
    return;
  }
  std::mt19937_64 rng(5);
  std::vector<avalanche::counting::Plane> tile(std::size_t{1} << 12);  // 2^16 words
  for (auto& p : tile)
    for (auto& w : p.w) w = rng();
  int dirs[16];
  for (int d = 0; d < 16; ++d) dirs[d] = d;
  std::vector<avalanche::counting::SlicedCounter> counters(16);
  Timer t;
  for (auto _ : state)
    k->count_tile(reinterpret_cast<const std::uint32_t*>(tile.data()), 16, dirs, 16, counters.data());
  const double pairs_per_s = 16.0 * 32768 * static_cast<double>(state.iterations()) / t.wall_s();
  state.counters["Mpairs_per_s"] = pairs_per_s / 1e6;
  state.SetLabel(k->name);
  results[std::string("counting_") + k->name] = pairs_per_s;
}

// Reading a counter's sums, per output bit, as a 32-bit sampled scoring does once per input
// bit and chunk: arg 0 the reference loop (add_totals, then position p into bit p % 32),
// arg 1 the fastest build's fold_bits. Counters as one chunk of 256 samples leaves them
// (16 difference planes: low planes and no level) and as 2^20 samples (levels in use).
void fold(benchmark::State& state) {
  const bool reference = state.range(0) == 0;
  const std::size_t planes = static_cast<std::size_t>(state.range(1)) / 16;
  const avalanche::counting::CountingKernels& k = avalanche::counting::best_counting_kernels();
  std::mt19937_64 rng(3);
  std::vector<avalanche::counting::Plane> rows(planes);
  for (auto& p : rows)
    for (auto& w : p.w) w = rng();
  std::vector<avalanche::counting::SlicedCounter> counters(32);
  for (auto& c : counters) k.count_diffs(rows.data(), 1, planes, &c);
  std::uint64_t sink = 0;
  Timer t;
  for (auto _ : state)
    for (const auto& c : counters) {
      std::uint64_t bits[32] = {};
      if (reference) {
        std::uint64_t totals[512] = {};
        avalanche::counting::add_totals(c, totals);
        for (int p = 0; p < 512; ++p) bits[p % 32] += totals[p];
      } else {
        k.fold_bits(c, 32, bits);
      }
      sink += bits[7];
      benchmark::DoNotOptimize(bits);
    }
  benchmark::DoNotOptimize(sink);
  const double us = 1e6 * t.wall_s() / static_cast<double>(state.iterations());
  state.counters["us_per_32_counters"] = us;
  state.SetLabel(reference ? "reference add_totals" : std::string("fold_bits ") + k.name);
  fold_us[{state.range(1), reference}] = us;
}

BENCHMARK(counting)->DenseRange(0, 2)->Unit(benchmark::kMillisecond)->MinTime(1.0)->UseRealTime();
BENCHMARK(fold)->ArgsProduct({{0, 1}, {256, 1 << 20}})->Unit(benchmark::kMicrosecond)->MinTime(0.5)->UseRealTime();
BENCHMARK(exact_jit)->Unit(benchmark::kSecond)->Iterations(2)->UseRealTime();
BENCHMARK(exact_interpreter)->Unit(benchmark::kMillisecond)->Iterations(3)->UseRealTime();
BENCHMARK(sampled_jit)
    ->ArgsProduct({{0, 1, 2}, {1, 16}, {20}})
    ->ArgsProduct({{0, 1}, {1, 16}, {12}})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(4)
    ->UseRealTime();
BENCHMARK(sampled_jit_run_only)->DenseRange(0, 2)->Unit(benchmark::kMillisecond)->Iterations(20)->UseRealTime();
BENCHMARK(sampled_interpreter)->Unit(benchmark::kMillisecond)->Iterations(5)->UseRealTime();
BENCHMARK(small_work)
    ->ArgsProduct({{8, 10, 12, 14}, {0, 1, 2}})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(20)
    ->UseRealTime();

}  // namespace

int main(int argc, char** argv) {
  tbb::global_control threads(tbb::global_control::max_allowed_parallelism, 2);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  std::printf("\n== summary (2 threads) ==\n");
  if (results.count("exact_jit_s") && results.count("exact_interpreter_s")) {
    std::printf("exact lowbias32, wall: JIT %.2f s, interpreter %.0f s (extrapolated) -> %.0fx\n",
                results["exact_jit_s"], results["exact_interpreter_s"],
                results["exact_interpreter_s"] / results["exact_jit_s"]);
    const double jit_cpu = results["exact_jit_cpu_s"] / 2, interp_cpu = results["exact_interpreter_cpu_s"] / 2;
    std::printf("exact lowbias32, 2-core equivalent: JIT %.2f s, interpreter %.0f s -> %.0fx\n", jit_cpu,
                interp_cpu, interp_cpu / jit_cpu);
  }
  if (results.count("counting_generic"))
    for (const char* isa : {"avx2", "avx512"})
      if (results.count(std::string("counting_") + isa))
        std::printf("exact counting kernels, one thread: %s %.0f Mpairs/s, baseline x86-64 %.0f Mpairs/s -> %.2fx\n",
                    isa, results[std::string("counting_") + isa] / 1e6, results["counting_generic"] / 1e6,
                    results[std::string("counting_") + isa] / results["counting_generic"]);
  const double interp = results["sampled_interpreter_rate"], interp_cpu = results["sampled_interpreter_cpu_rate"];
  for (const auto& [name, rate] : sampled_rates) {
    if (name.rfind("N=2^20", 0) == 0)
      std::printf("sampled incl. compile, %s: wall %.0f programs/s (%.0fx interpreter's %.2f/s); "
                  "2-core equivalent %.0f programs/s (%.0fx interpreter's %.2f/s)\n",
                  name.c_str(), rate.first, interp > 0 ? rate.first / interp : 0.0, interp, rate.second,
                  interp_cpu > 0 ? rate.second / interp_cpu : 0.0, interp_cpu);
    else  // small counts: compile cost decides (the interpreter scales by 2^20 / N)
      std::printf("sampled incl. compile, %s: wall %.0f programs/s; 2-core equivalent %.0f programs/s "
                  "(interpreter: %.0f/s)\n",
                  name.c_str(), rate.first, rate.second, interp_cpu * 256);
  }
  for (const std::int64_t samples : {256, 1 << 20})
    if (fold_us.count({samples, true}) && fold_us.count({samples, false}))
      std::printf(
          "reading 32 counters by output bit after %lld samples: reference loop %.1f us, fold_bits "
          "%.1f us -> %.1fx\n",
          static_cast<long long>(samples), fold_us[{samples, true}], fold_us[{samples, false}],
          fold_us[{samples, true}] / fold_us[{samples, false}]);
  // Step evaluations of a 5-step 32-bit program at N samples: N x 33 x 5.
  for (const int log2n : {8, 10, 12, 14}) {
    if (!small_ms.count({log2n, 2})) continue;
    const double jit = small_ms[{log2n, 2}];
    const double work = static_cast<double>(std::uint64_t{1} << log2n) * 33 * 5;
    std::printf("small task, N=2^%d (%.0f step evaluations), one thread, ms per program: reference loops %.3f, "
                "interpreted counter %.3f, JIT incl. compile %.3f -> JIT / interpreted %.2f\n",
                log2n, work, small_ms[{log2n, 0}], small_ms[{log2n, 1}], jit, jit / small_ms[{log2n, 1}]);
  }
  return 0;
}
