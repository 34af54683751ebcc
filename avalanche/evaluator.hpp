#pragma once
// The scoring facade: exact, sampled and staged (early-reject) avalanche scores of a
// program. Thread-safe: one Evaluator may be shared by many threads. Compiles programs
// through the process's JIT engine; the engine is owned by whoever created it.
#include <atomic>
#include <cstdint>
#include <memory>

#include "avalanche/batch_function.hpp"
#include "avalanche/stats/chi_square.hpp"
#include "avalanche/counts.hpp"
#include "avalanche/count/grouped_counts.hpp"
#include "mixer/program.hpp"

namespace mixforge::jit {
class Engine;
}

namespace mixforge::avalanche {

class GpuCounter;
class GpuFallback;
struct DeviceSelection;

// Counts with the score they give (for callers that show the matrix too).
struct ScoredCounts {
  AvalancheCounts counts;
  Score score;
};

struct StagedOptions {
  std::uint64_t seed = 1;
  std::uint64_t first_samples = 1u << 12;  // stage 0
  std::uint64_t max_samples = 1u << 20;    // the last stage
  unsigned growth = 4;                     // samples multiply by this each stage
  // Stop as soon as the program is worse than this chi2 with the given one-sided
  // confidence: chi2_corrected - z * stderr > threshold. <= 0 disables rejecting.
  double threshold = 0;
  double confidence = 0.999;
};

struct StagedScore {
  Score score;            // at the last stage run
  int stage = 0;          // index of the last stage run
  int stages = 0;         // stages the schedule has
  bool rejected = false;  // stopped early: worse than the threshold
};

class Evaluator {
 public:
  // engine may be null: then the interpreter hashes and the SIMD counting kernels count
  // (avalanche/count/interpreted_counter.hpp; slower than a kernel, but nothing to compile: for
  // small tasks, tests, and builds without the JIT).
  explicit Evaluator(jit::Engine* engine);
  // Owns a JIT engine of its own when mixforge was built with the JIT (the usual case).
  static std::unique_ptr<Evaluator> with_own_engine();
  bool uses_jit() const;
  // From now on exact counts, and sampled counts of at least min_samples samples, run on
  // this GPU (avalanche/gpu/gpu_counter.hpp: the same counts, bit for bit). Call before the
  // evaluator is shared between threads; null goes back to the CPU.
  // A new program costs the GPU 50-400 ms of PTX compile and module load before it counts
  // (bench_gpu on an H100: first call minus warm call), and the CPU samples about 10 ns a
  // sample on one core, so below about 2^23 samples the CPU is sooner. With 2^20 here, 32-bit
  // searches on an H100 ran 29-36 tournaments/s against 49-51 on the CPU alone; with 2^23,
  // 66-75 against 55-71 (bench/results/gpu/search*, 2026-11-27).
  // A GPU call that fails (cuda::CudaError: a PTX load, a launch) throws.
  void use_gpu(std::shared_ptr<const GpuCounter> gpu, std::uint64_t min_samples = std::uint64_t{1} << 23);
  // As use_gpu with the selection's GPU (none: the CPU). Under auto (device.fallback set),
  // a GPU call that fails with cuda::CudaError is not an error: the call is scored on the
  // CPU (the same counts), the failure is recorded in device.fallback (its listener is
  // told once), and from then on every evaluator sharing that record scores on the CPU.
  void use_device(const DeviceSelection& device, std::uint64_t min_samples = std::uint64_t{1} << 23);
  // The GPU that scores now: null without one, and after a fallback.
  const GpuCounter* gpu() const;
  ~Evaluator();
  Evaluator(const Evaluator&) = delete;
  Evaluator& operator=(const Evaluator&) = delete;

  // All 2^n inputs (n <= 32); uses all TBB worker threads. Widths up to
  // interpreted_exact_max_width are hashed by the interpreter (no compile), wider ones by
  // the JIT kernel (or the GPU); without a JIT, every width by the interpreter.
  // cancel (may be null): when it turns true the count stops early and throws
  // EvaluationCancelled (avalanche/counts.hpp).
  AvalancheCounts counts_exact(const mixer::Program& program, const std::atomic<bool>* cancel = nullptr) const;
  // Samples [first, first + count) of the stream with this seed; runs on the calling thread.
  AvalancheCounts counts_sampled(const mixer::Program& program, std::uint64_t seed, std::uint64_t first,
                                 std::uint64_t count) const;

  // Samples [acc.trials(), acc.trials() + count) of the stream with this seed, added to acc
  // in acc.chunks(count) contiguous chunks (one compile for all of them). Sampled scores take
  // their standard error from these groups (avalanche/count/grouped_counts.hpp).
  void extend_sampled(GroupedCounts& acc, const mixer::Program& program, std::uint64_t seed, std::uint64_t count) const;

  // f applied in batches: the JIT's apply kernel (compiled here, held by the function),
  // else the interpreter. Validates the program (ProgramError).
  BatchFunction batch_function(const mixer::Program& program) const;

  // All inputs (exact) or `samples` of the stream with this seed; a sampled score's
  // standard error comes from its sample groups (extend_sampled).
  ScoredCounts scored_counts(const mixer::Program& program, bool exact, std::uint64_t samples, std::uint64_t seed,
                             const std::atomic<bool>* cancel = nullptr) const;
  Score exact(const mixer::Program& program) const;
  Score sampled(const mixer::Program& program, std::uint64_t samples, std::uint64_t seed) const;
  StagedScore staged(const mixer::Program& program, const StagedOptions& options) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Exact scores at and below this width skip the JIT: all 2^n inputs interpreted 16 at a
// time cost less than compiling a kernel (bench_avalanche's exact_small rows).
inline constexpr int interpreted_exact_max_width = 20;

// The one-sided normal quantile for a confidence in (0.5, 1): 0.999 -> 3.09.
double normal_quantile(double confidence);

}  // namespace mixforge::avalanche
