#include "avalanche/count/jit_counts.hpp"

#include <algorithm>

#include "avalanche/count/exact_counter.hpp"
#include "avalanche/count/sampled_counter.hpp"
#include "jit/engine.hpp"
#include "jit/kernel.hpp"

namespace mixforge::avalanche {

AvalancheCounts exact_counts(const jit::Kernel& k, const std::atomic<bool>* cancel) {
  return exact_counts_of_tiles(
      k.width(),
      [&k](std::uint32_t* out, std::uint32_t base, unsigned shift, std::size_t vectors) {
        k.hash_tile(out, base, shift, vectors);
      },
      cancel);
}

namespace {

// Exact counts hash 2^33 inputs: optimised code always pays for itself.
int exact_codegen_level(const jit::Engine& engine) { return std::max(1, engine.options().codegen_opt_level); }

}  // namespace

int sampled_codegen_level(const jit::Engine& engine, std::uint64_t count) {
  // Measured (bench_avalanche, bench_jit_compile; 5-step 32-bit programs): level 0 saves
  // ~1.4 ms of compiling and costs ~1.5 ns per sample, so it wins below ~10^6 samples.
  return count < (std::uint64_t{1} << 20) ? 0 : engine.options().codegen_opt_level;
}

AvalancheCounts jit_counts_exact(jit::Engine& engine, const mixer::Program& program, const std::atomic<bool>* cancel) {
  return exact_counts(*engine.compile(program, jit::parts_tile, exact_codegen_level(engine)), cancel);
}

std::shared_ptr<const jit::Kernel> jit_sampled_kernel(jit::Engine& engine, const mixer::Program& program,
                                                      std::uint64_t count) {
  return engine.compile(program, jit::parts_diffs, sampled_codegen_level(engine, count));
}

AvalancheCounts jit_counts_sampled(jit::Engine& engine, const mixer::Program& program, std::uint64_t seed,
                                   std::uint64_t first, std::uint64_t count) {
  return sampled_counts(*jit_sampled_kernel(engine, program, count), seed, first, count);
}

std::vector<std::shared_ptr<const jit::Kernel>> jit_prepare_exact(jit::Engine& engine,
                                                                  std::span<const mixer::Program> programs) {
  return engine.compile_batch(programs, jit::parts_tile, exact_codegen_level(engine));
}

std::vector<std::shared_ptr<const jit::Kernel>> jit_prepare_sampled(jit::Engine& engine,
                                                                    std::span<const mixer::Program> programs,
                                                                    std::uint64_t count) {
  return engine.compile_batch(programs, jit::parts_diffs, sampled_codegen_level(engine, count));
}

}  // namespace mixforge::avalanche
