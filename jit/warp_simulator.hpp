#pragma once
// The GPU counting kernels (jit/count_kernels.hpp) compiled for the host CPU, with a warp
// as a 32-lane vector and warp shuffles as vector shuffles: the same IR emitter, so the
// counting logic (lane transposes, pair symmetry, index ranges, batches) is tested and
// usable where no GPU exists. Slow (one warp per call); for tests and cross-checks.
#include <cstdint>
#include <memory>
#include <span>

#include "jit/count_kernels.hpp"
#include "mixer/program.hpp"

namespace mixforge::jit {

class WarpSimulator {
 public:
  enum class Kind { exact, sampled };

  // Compiles the batch's kernels (programs of one width) with LLVM ORC for this host; a
  // kernel not in `which` is not compiled (host compiles of these take seconds).
  explicit WarpSimulator(std::span<const mixer::Program> programs, const CountKernelOptions& options = {},
                         CountKernels which = CountKernels::both);
  ~WarpSimulator();
  WarpSimulator(const WarpSimulator&) = delete;
  WarpSimulator& operator=(const WarpSimulator&) = delete;

  int width() const;
  std::size_t programs() const;

  // Indices per tile of the exact kernel (exact_granule).
  std::uint64_t exact_granule() const;

  // What CUDA warp `warp` of block row `program` does in a launch with these arguments.
  // Thread-safe (atomic adds into counts).
  void run_warp(Kind kind, std::uint64_t* counts, std::uint64_t first, std::uint64_t end,
                std::uint64_t per_warp, std::uint64_t seed, std::uint64_t warp, std::uint32_t program) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace mixforge::jit
