// The cost of the run objective's extra terms (evolver/search/objective.hpp) against the
// avalanche scores a run already pays for: what README's "Objective" quotes. JIT-compiled
// functions (the kernel compiled once, outside the timing), one thread.
#include <benchmark/benchmark.h>

#include "avalanche/evaluator.hpp"
#include "evolver/search/objective.hpp"
#include "mixer/text_form.hpp"

using namespace mixforge;

namespace {

const char* const lowbias32 = "x ^= x >> 16; x *= 0x7feb352d; x ^= x >> 15; x *= 0x846ca68b; x ^= x >> 16;";
const char* const hash16 = "x ^= x >> 8; x *= 0x88b5; x ^= x >> 7; x *= 0xdb2d; x ^= x >> 9;";

const avalanche::Evaluator& evaluator() {
  static const auto ev = avalanche::Evaluator::with_own_engine();
  return *ev;
}

mixer::Program program_of(int width) { return mixer::parse_program(width == 16 ? hash16 : lowbias32, {width, 64}); }

// args: width, samples, which (1 bic, 2 higher order, 3 both)
void BM_ObjectiveTerms(benchmark::State& state) {
  const int width = static_cast<int>(state.range(0));
  const mixer::Program p = program_of(width);
  const avalanche::BatchFunction f = evaluator().batch_function(p);
  const evolver::ObjectiveConfig o{state.range(2) & 1 ? 1.0 : 0.0, state.range(2) & 2 ? 1.0 : 0.0,
                                   static_cast<std::uint64_t>(state.range(1))};
  for (auto _ : state) benchmark::DoNotOptimize(evolver::objective_terms(f, width, o, 1));
}
BENCHMARK(BM_ObjectiveTerms)
    ->ArgNames({"width", "samples", "terms"})
    ->Args({16, 1 << 12, 3})->Args({16, 1 << 14, 1})->Args({16, 1 << 14, 2})->Args({16, 1 << 14, 3})
    ->Args({32, 1 << 12, 3})->Args({32, 1 << 14, 1})->Args({32, 1 << 14, 2})->Args({32, 1 << 14, 3})
    ->Unit(benchmark::kMillisecond);

// What a run pays per fully scored child without the objective, on one thread: 2^16
// inputs at 16 bits (the work of an exact 16-bit score; exact scores themselves use every
// core), and 32-bit scores at the first (2^14) and last (2^22) default sample counts.
void BM_AvalancheScore(benchmark::State& state) {
  const int width = static_cast<int>(state.range(0));
  const mixer::Program p = program_of(width);
  const auto samples = static_cast<std::uint64_t>(state.range(1));
  evaluator().sampled(p, 64, 1);  // compile outside the timing
  for (auto _ : state) benchmark::DoNotOptimize(evaluator().sampled(p, samples, 1));
}
BENCHMARK(BM_AvalancheScore)
    ->ArgNames({"width", "samples"})
    ->Args({16, 1 << 16})->Args({32, 1 << 14})->Args({32, 1 << 18})->Args({32, 1 << 22})
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
