#pragma once
// Avalanche counts on a CUDA GPU: the counting kernels of jit/count_kernels.hpp (PTX from
// LLVM's NVPTX back end, loaded through the run-time-loaded driver, avalanche/cuda_driver)
// give exactly the CPU's counts: exact over 2^n inputs, sampled on the same sample stream.
// The same launches also run on the host's warp simulator (slow), which is how the
// kernels' logic is tested where no GPU is present.
#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "avalanche/counts.hpp"
#include "avalanche/gpu/device.hpp"
#include "jit/count_kernels.hpp"
#include "mixer/program.hpp"

namespace mixforge::avalanche {

struct GpuDeviceInfo {
  std::string name;          // "NVIDIA H100 80GB HBM3"
  std::string architecture;  // the PTX target used, "sm_90"
  int compute_major = 0, compute_minor = 0;
  std::uint64_t memory = 0;  // bytes
  int driver_version = 0;
};

class GpuCounter {
 public:
  // The first CUDA device; throws cuda::CudaError saying why there is none. kernels: how
  // the kernels count (jit/count_kernels.hpp); the counts are the same either way.
  // fault (avalanche/gpu/device.hpp): every module load, or every launch, throws CudaError;
  // with a fault and no GPU, a stand-in without a driver that fails the same way.
  static std::unique_ptr<GpuCounter> open(const jit::CountKernelOptions& kernels = {}, GpuFault fault = GpuFault::none);
  ~GpuCounter();
  GpuCounter(const GpuCounter&) = delete;
  GpuCounter& operator=(const GpuCounter&) = delete;

  const GpuDeviceInfo& device() const;

  // Thread-safe: calls are serialised on the device. Widths <= 32 for exact counts.
  // cancel: checked between launches of 2^28 inputs (EvaluationCancelled).
  AvalancheCounts counts_exact(const mixer::Program& program, const std::atomic<bool>* cancel = nullptr) const;
  // Several programs of one width in one launch per chunk; result[i] is programs[i].
  std::vector<AvalancheCounts> counts_exact_batch(std::span<const mixer::Program> programs) const;
  AvalancheCounts counts_sampled(const mixer::Program& program, std::uint64_t seed, std::uint64_t first,
                                 std::uint64_t count) const;

 private:
  struct Impl;
  explicit GpuCounter(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// The GPU's launches run on the host by jit::WarpSimulator, warp by warp (TBB threads).
// Programs of one width; exact needs width <= 32. For tests and cross-checks.
std::vector<AvalancheCounts> simulate_gpu_counts_exact(std::span<const mixer::Program> programs,
                                                       const jit::CountKernelOptions& kernels = {});
std::vector<AvalancheCounts> simulate_gpu_counts_sampled(std::span<const mixer::Program> programs, std::uint64_t seed,
                                                         std::uint64_t first, std::uint64_t count,
                                                         const jit::CountKernelOptions& kernels = {});

// How a range of indices is cut into warps (jit/count_kernels.hpp); exposed for tests.
// granule: a power of two from 32 to 2^30 (exact_granule).
struct WarpPlan {
  std::uint64_t per_warp = 32;  // a multiple of the granule, <= 2^30
  std::uint64_t warps = 0;
};
WarpPlan plan_warps(std::uint64_t indices, std::uint64_t max_warps, std::uint64_t granule = 32);

}  // namespace mixforge::avalanche
