#include "avalanche/evaluator.hpp"

#include <cmath>
#include <functional>
#include <optional>
#include <stdexcept>

#include "avalanche/gpu/device.hpp"
#include "avalanche/count/exact_counter.hpp"
#include "avalanche/count/interpreted_counter.hpp"
#if MIXFORGE_WITH_JIT
#include "avalanche/gpu/cuda_driver.hpp"
#include "avalanche/gpu/gpu_counter.hpp"
#include "avalanche/count/jit_counts.hpp"
#include "avalanche/count/sampled_counter.hpp"
#include "jit/engine.hpp"
#endif

namespace mixforge::avalanche {

struct Evaluator::Impl {
  jit::Engine* engine = nullptr;
  std::shared_ptr<const GpuCounter> gpu;
  std::shared_ptr<GpuFallback> fallback;  // null: a GPU failure is an error
  std::uint64_t gpu_min_samples = 0;

  // The GPU unless there is none or it was given up (by any evaluator sharing fallback).
  const GpuCounter* live_gpu() const { return gpu && !(fallback && fallback->happened()) ? gpu.get() : nullptr; }

#if MIXFORGE_WITH_JIT
  std::unique_ptr<jit::Engine> owned;

  // count() on the GPU. Under auto a CUDA error (the driver's, or an injected one) records
  // the fallback and gives nullopt: the caller scores on the CPU. Other errors (a bad
  // width, a cancel) are the program's, not the GPU's, and propagate as before.
  template <class Count>
  std::optional<AvalancheCounts> on_gpu(Count count) const {
    try {
      return count();
    } catch (const cuda::CudaError& e) {
      if (!fallback) throw;
      fallback->fall_back(e.what());
      return std::nullopt;
    }
  }
#endif
};

Evaluator::Evaluator(jit::Engine* engine) : impl_(std::make_unique<Impl>()) { impl_->engine = engine; }
Evaluator::~Evaluator() = default;

std::unique_ptr<Evaluator> Evaluator::with_own_engine() {
  auto e = std::make_unique<Evaluator>(nullptr);
#if MIXFORGE_WITH_JIT
  e->impl_->owned = std::make_unique<jit::Engine>();
  e->impl_->engine = e->impl_->owned.get();
#endif
  return e;
}

bool Evaluator::uses_jit() const { return impl_->engine != nullptr; }

void Evaluator::use_gpu(std::shared_ptr<const GpuCounter> gpu, std::uint64_t min_samples) {
  impl_->gpu = std::move(gpu);
  impl_->fallback = nullptr;
  impl_->gpu_min_samples = min_samples;
}

void Evaluator::use_device(const DeviceSelection& device, std::uint64_t min_samples) {
  use_gpu(device.gpu, min_samples);
  if (device.gpu) impl_->fallback = device.fallback;
}

const GpuCounter* Evaluator::gpu() const { return impl_->live_gpu(); }

static void check_exact_width(const mixer::Program& p) {
  if (p.width() > 32)
    throw std::invalid_argument("exact scoring needs width <= 32 (2^" + std::to_string(p.width()) +
                                " inputs is too many); use sampled scoring");
}

AvalancheCounts Evaluator::counts_exact(const mixer::Program& program, const std::atomic<bool>* cancel) const {
  mixer::validate(program, {1 << 16});
  check_exact_width(program);
#if MIXFORGE_WITH_JIT
  // Up to interpreted_exact_max_width the interpreter hashes all 2^n inputs sooner than a
  // kernel compiles (or a GPU module loads); above it the compiled kernel wins.
  if (program.width() > interpreted_exact_max_width) {
    if (const GpuCounter* gpu = impl_->live_gpu())
      if (auto counts = impl_->on_gpu([&] { return gpu->counts_exact(program, cancel); })) return std::move(*counts);
    if (impl_->engine) return jit_counts_exact(*impl_->engine, program, cancel);
  }
#endif
  return interpreted_counts_exact(program, cancel);
}

AvalancheCounts Evaluator::counts_sampled(const mixer::Program& program, std::uint64_t seed, std::uint64_t first,
                                          std::uint64_t count) const {
  mixer::validate(program, {1 << 16});
#if MIXFORGE_WITH_JIT
  // Small counts stay on the CPU: a launch and a PTX compile cost more than they do.
  if (const GpuCounter* gpu = impl_->live_gpu(); gpu && count >= impl_->gpu_min_samples)
    if (auto counts = impl_->on_gpu([&] { return gpu->counts_sampled(program, seed, first, count); }))
      return std::move(*counts);
  if (impl_->engine) return jit_counts_sampled(*impl_->engine, program, seed, first, count);
#endif
  return interpreted_counts_sampled(program, seed, first, count);
}

void Evaluator::extend_sampled(GroupedCounts& acc, const mixer::Program& program, std::uint64_t seed,
                               std::uint64_t count) const {
  mixer::validate(program, {1 << 16});
  if (count == 0) return;
  const std::uint64_t first = acc.trials();
  std::function<AvalancheCounts(std::uint64_t, std::uint64_t)> counter = [&](std::uint64_t f, std::uint64_t c) {
    return interpreted_counts_sampled(program, seed, f, c);
  };
#if MIXFORGE_WITH_JIT
  std::shared_ptr<const jit::Kernel> kernel;
  if (impl_->engine) {
    kernel = jit_sampled_kernel(*impl_->engine, program, count);
    counter = [&](std::uint64_t f, std::uint64_t c) { return sampled_counts(*kernel, seed, f, c); };
  }
  if (const GpuCounter* gpu = impl_->live_gpu(); gpu && count >= impl_->gpu_min_samples) {
    // Each chunk on the GPU while it works; after a failure under auto, on the CPU (above).
    counter = [&, gpu, cpu = counter](std::uint64_t f, std::uint64_t c) {
      if (impl_->live_gpu())
        if (auto counts = impl_->on_gpu([&] { return gpu->counts_sampled(program, seed, f, c); }))
          return std::move(*counts);
      return cpu(f, c);
    };
  }
#endif
  const int chunks = acc.chunks(count);
  for (int k = 0; k < chunks; ++k) {
    const std::uint64_t from = group_chunk_start(first, count, chunks, k);
    const std::uint64_t to = group_chunk_start(first, count, chunks, k + 1);
    if (to > from) acc.add(acc.group_of(k), counter(from, to - from));
  }
  acc.advance(chunks);
}

BatchFunction Evaluator::batch_function(const mixer::Program& program) const {
  mixer::validate(program, {1 << 16});
#if MIXFORGE_WITH_JIT
  if (impl_->engine) {
    std::shared_ptr<const jit::Kernel> kernel = impl_->engine->compile(program, jit::parts_apply);
    return [kernel](const std::uint64_t* in, std::uint64_t* out, std::size_t n) { kernel->apply(in, out, n); };
  }
#endif
  return interpreted_function(program);
}

ScoredCounts Evaluator::scored_counts(const mixer::Program& program, bool exact, std::uint64_t samples,
                                      std::uint64_t seed, const std::atomic<bool>* cancel) const {
  ScoredCounts out;
  if (exact) {
    out.counts = counts_exact(program, cancel);
    out.score = score(out.counts);
    return out;
  }
  if (samples == 0) throw std::invalid_argument("sampled scoring needs at least one sample");
  GroupedCounts acc(program.width());
  extend_sampled(acc, program, seed, samples);
  out.counts = acc.pooled();
  out.score = acc.score();
  return out;
}

Score Evaluator::exact(const mixer::Program& program) const { return score(counts_exact(program)); }

Score Evaluator::sampled(const mixer::Program& program, std::uint64_t samples, std::uint64_t seed) const {
  return scored_counts(program, false, samples, seed).score;
}

StagedScore Evaluator::staged(const mixer::Program& program, const StagedOptions& o) const {
  if (o.first_samples == 0 || o.max_samples < o.first_samples || o.growth < 2)
    throw std::invalid_argument("staged scoring needs 0 < first_samples <= max_samples and growth >= 2");
  if (!(o.confidence > 0.5 && o.confidence < 1))
    throw std::invalid_argument("staged scoring confidence must lie in (0.5, 1)");
  StagedScore out;
  for (std::uint64_t n = o.first_samples;; n = std::min<std::uint64_t>(n * o.growth, o.max_samples)) {
    ++out.stages;
    if (n == o.max_samples) break;
  }
  const double z = normal_quantile(o.confidence);
  GroupedCounts acc(program.width());
  std::uint64_t target = o.first_samples;
  for (int stage = 0;; ++stage) {
    // Stages extend the same sample stream: stage k reuses every sample of stage k-1.
    extend_sampled(acc, program, o.seed, target - acc.trials());
    out.score = acc.score();
    out.stage = stage;
    const bool last = target >= o.max_samples;
    if (!last && o.threshold > 0 && out.score.chi2_corrected - z * out.score.chi2_stderr > o.threshold) {
      out.rejected = true;
      return out;
    }
    if (last) return out;
    target = std::min<std::uint64_t>(target * o.growth, o.max_samples);
  }
}

double normal_quantile(double p) {
  // Acklam's rational approximation (relative error < 1.2e-9), upper tail part suffices
  // for p in (0.5, 1) but the full form keeps it honest everywhere.
  static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,  -2.759285104469687e+02,
                             1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
  static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                             6.680131188771972e+01, -1.328068155288572e+01};
  static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                             -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
  static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                             3.754408661907416e+00};
  if (!(p > 0 && p < 1)) throw std::invalid_argument("quantile needs p in (0, 1)");
  const double plow = 0.02425, phigh = 1 - plow;
  if (p < plow) {
    const double q = std::sqrt(-2 * std::log(p));
    return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
           ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  if (p > phigh) {
    const double q = std::sqrt(-2 * std::log(1 - p));
    return -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
           ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  const double q = p - 0.5, r = q * q;
  return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
         (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
}

}  // namespace mixforge::avalanche
