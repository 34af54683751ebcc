#pragma once
// Avalanche counts through the JIT engine: compile (or reuse) the program's kernel with
// the entry point each mode needs, then count (exact_counter.hpp, sampled_counter.hpp).
#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "avalanche/counts.hpp"
#include "mixer/program.hpp"

namespace mixforge::jit {
class Engine;
class Kernel;
}  // namespace mixforge::jit

namespace mixforge::avalanche {

// All 2^n inputs (n <= 32), on all TBB worker threads.
// cancel: see exact_counter.hpp.
AvalancheCounts jit_counts_exact(jit::Engine& engine, const mixer::Program& program,
                                 const std::atomic<bool>* cancel = nullptr);
// Samples [first, first + count) of the stream with this seed, on the calling thread.
AvalancheCounts jit_counts_sampled(jit::Engine& engine, const mixer::Program& program, std::uint64_t seed,
                                   std::uint64_t first, std::uint64_t count);

// The kernel jit_counts_sampled would use for `count` samples (compiled or cached), for
// callers that count several ranges with one compile.
std::shared_ptr<const jit::Kernel> jit_sampled_kernel(jit::Engine& engine, const mixer::Program& program,
                                                      std::uint64_t count);

// Compiles many programs as one batch (several times cheaper per program than one by
// one) with what jit_counts_exact / jit_counts_sampled(..., count) will ask for. While the
// caller holds the returned kernels, those calls find them in the engine's cache.
std::vector<std::shared_ptr<const jit::Kernel>> jit_prepare_exact(jit::Engine& engine,
                                                                  std::span<const mixer::Program> programs);
std::vector<std::shared_ptr<const jit::Kernel>> jit_prepare_sampled(jit::Engine& engine,
                                                                    std::span<const mixer::Program> programs,
                                                                    std::uint64_t count);

// The codegen level sampled counting asks for: quick code (level 0, compiles 2-3x
// faster) below 2^20 samples per call, where compiling costs more than the slower code;
// the engine's level from there on.
int sampled_codegen_level(const jit::Engine& engine, std::uint64_t count);

}  // namespace mixforge::avalanche
