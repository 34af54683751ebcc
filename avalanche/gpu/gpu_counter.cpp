#include "avalanche/gpu/gpu_counter.hpp"

#include <tbb/parallel_for.h>

#include <algorithm>
#include <list>
#include <mutex>
#include <stdexcept>
#include <unordered_map>

#include "avalanche/gpu/cuda_driver.hpp"
#include "jit/count_kernels.hpp"
#include "jit/warp_simulator.hpp"

namespace mixforge::avalanche {
namespace {

constexpr unsigned block_threads = 256;              // 8 warps
constexpr std::uint64_t exact_chunk = 1ull << 28;    // inputs per launch: cancel granularity
constexpr std::uint64_t gpu_max_warps = 1ull << 16;  // 2M threads: several waves on an H100
constexpr std::size_t module_cache_size = 64;

void check_batch(std::span<const mixer::Program> programs, bool exact) {
  if (programs.empty()) throw std::invalid_argument("gpu counts: no programs");
  const int n = programs.front().width();
  for (const mixer::Program& p : programs)
    if (p.width() != n) throw std::invalid_argument("gpu counts: a batch holds programs of one width");
  if (exact && n > 32) throw std::invalid_argument("gpu counts: exact counts need a width <= 32");
  if (programs.size() > 65535) throw std::invalid_argument("gpu counts: at most 65535 programs per batch");
}

std::vector<AvalancheCounts> unpack(const std::vector<std::uint64_t>& flat, std::size_t programs, int n,
                                    std::uint64_t trials, bool exact) {
  std::vector<AvalancheCounts> result;
  const std::size_t cells = static_cast<std::size_t>(n) * n;
  for (std::size_t b = 0; b < programs; ++b) {
    AvalancheCounts c = AvalancheCounts::zero(n, exact);
    c.trials = trials;
    std::copy_n(flat.begin() + static_cast<std::ptrdiff_t>(b * cells), cells, c.flips.begin());
    result.push_back(std::move(c));
  }
  return result;
}

// The PTX target for a device: sm_90 (PTX 8.0) on Hopper and later (the driver compiles
// PTX forward to newer GPUs), else sm_75 code with PTX 6.4 as the generic fallback.
jit::PtxOptions ptx_target(int major) {
  if (major >= 9) return {"sm_90", "+ptx80", ""};
  return {"sm_75", "+ptx64", ""};
}

}  // namespace

WarpPlan plan_warps(std::uint64_t indices, std::uint64_t max_warps, std::uint64_t granule) {
  WarpPlan plan;
  plan.per_warp = granule;
  if (indices == 0) return plan;
  const std::uint64_t per = (indices + max_warps - 1) / max_warps;
  plan.per_warp =
      std::min<std::uint64_t>(jit::max_per_warp, std::max(granule, (per + granule - 1) / granule * granule));
  plan.warps = (indices + plan.per_warp - 1) / plan.per_warp;
  return plan;
}

// ---- the CUDA device ----

struct GpuCounter::Impl {
  // A batch's module holds the one kernel a call needs (jit::CountKernels).
  struct Module {
    std::vector<mixer::Program> programs;
    bool exact = false;
    cuda::ModuleHandle* module = nullptr;
    cuda::FunctionHandle* kernel = nullptr;
  };
  std::unique_ptr<cuda::Driver> driver;  // null: the stand-in of a fault injected without a GPU
  GpuFault fault = GpuFault::none;
  GpuDeviceInfo info;
  jit::PtxOptions target;
  jit::CountKernelOptions kernels;
  mutable std::mutex mu;              // one caller on the device at a time
  mutable std::list<Module> modules;  // most recently used first

  ~Impl() {
    if (!driver) return;
    for (Module& m : modules) {
      try {
        driver->unload(m.module);
      } catch (const std::exception&) {
        // The context goes with the driver anyway.
      }
    }
  }

  // The batch's kernel, compiled and loaded on first use. Caller holds mu.
  cuda::FunctionHandle* kernel_for(std::span<const mixer::Program> programs, bool exact) const {
    for (auto it = modules.begin(); it != modules.end(); ++it)
      if (it->exact == exact &&
          std::equal(it->programs.begin(), it->programs.end(), programs.begin(), programs.end())) {
        modules.splice(modules.begin(), modules, it);
        return modules.front().kernel;
      }
    Module m;
    m.programs.assign(programs.begin(), programs.end());
    m.exact = exact;
    const std::string ptx =
        jit::emit_count_ptx(programs, target, kernels, exact ? jit::CountKernels::exact : jit::CountKernels::sampled);
    if (fault == GpuFault::load)
      throw cuda::CudaError("cuda: cuModuleLoadDataEx failed: an injected fault (MIXFORGE_FAULT_GPU=load)");
    // The stand-in keeps null handles: its launches fail (launch fault) before using them.
    if (driver) {
      m.module = driver->load_ptx(ptx);
      m.kernel = driver->function(m.module, exact ? jit::count_kernel_exact : jit::count_kernel_sampled);
    }
    modules.push_front(std::move(m));
    if (modules.size() > module_cache_size) {
      if (driver) driver->unload(modules.back().module);
      modules.pop_back();
    }
    return modules.front().kernel;
  }

  // Exact counts of a batch over all 2^n inputs.
  std::vector<AvalancheCounts> exact(std::span<const mixer::Program> programs, const std::atomic<bool>* cancel) const {
    check_batch(programs, true);
    std::lock_guard lock(mu);
    const int n = programs.front().width();
    const std::uint64_t inputs = std::uint64_t{1} << n;
    auto flat = run(kernel_for(programs, true), programs.size(), n, 0, inputs, 0, exact_chunk,
                    jit::exact_granule(n, kernels), cancel);
    return unpack(flat, programs.size(), n, inputs, true);
  }

  // Launches `f` over [first, end) in chunks; returns the flat counts of the batch.
  std::vector<std::uint64_t> run(cuda::FunctionHandle* f, std::size_t batch, int n, std::uint64_t first,
                                 std::uint64_t end, std::uint64_t seed, std::uint64_t chunk, std::uint64_t granule,
                                 const std::atomic<bool>* cancel) const {
    // Before the device memory, so that the stand-in (no driver) fails here too.
    if (fault == GpuFault::launch)
      throw cuda::CudaError("cuda: cuLaunchKernel failed: an injected fault (MIXFORGE_FAULT_GPU=launch)");
    const std::size_t bytes = batch * static_cast<std::size_t>(n) * n * sizeof(std::uint64_t);
    const cuda::DevicePtr counts = driver->allocate(bytes);
    struct Free {
      cuda::Driver& d;
      cuda::DevicePtr p;
      ~Free() { d.release(p); }
    } free_counts{*driver, counts};
    driver->zero(counts, bytes);
    for (std::uint64_t from = first; from < end;) {
      if (cancel && cancel->load(std::memory_order_relaxed)) throw EvaluationCancelled();
      std::uint64_t to = std::min(end, from + chunk);
      const WarpPlan plan = plan_warps(to - from, gpu_max_warps, granule);
      std::uint64_t ptr = counts, a = from, b = to, per = plan.per_warp, s = seed;
      void* args[] = {&ptr, &a, &b, &per, &s};
      const auto blocks = static_cast<unsigned>((plan.warps * 32 + block_threads - 1) / block_threads);
      driver->launch(f, blocks, static_cast<unsigned>(batch), block_threads, args);
      from = to;
    }
    std::vector<std::uint64_t> flat(bytes / sizeof(std::uint64_t));
    driver->copy_to_host(flat.data(), counts, bytes);
    return flat;
  }
};

GpuCounter::GpuCounter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
GpuCounter::~GpuCounter() = default;

std::unique_ptr<GpuCounter> GpuCounter::open(const jit::CountKernelOptions& kernels, GpuFault fault) {
  jit::check_kernel_options(kernels);  // before touching the driver
  auto impl = std::make_unique<Impl>();
  impl->kernels = kernels;
  impl->fault = fault;
  try {
    impl->driver = std::make_unique<cuda::Driver>(0);
  } catch (const cuda::CudaError&) {
    if (fault == GpuFault::none) throw;
    // No GPU here, but a fault to test: a stand-in that emits the PTX of a real device
    // (sm_90) and fails where the fault says, before it would need a driver.
    impl->target = ptx_target(9);
    impl->info = {std::string("fault-injection stand-in (MIXFORGE_FAULT_GPU=") + gpu_fault_name(fault) +
                      ", no CUDA GPU here)",
                  impl->target.gpu,
                  9,
                  0,
                  0,
                  0};
    return std::unique_ptr<GpuCounter>(new GpuCounter(std::move(impl)));
  }
  const cuda::DeviceInfo& d = impl->driver->device();
  if (d.major < 7 || (d.major == 7 && d.minor < 5))
    throw cuda::CudaError("cuda: " + d.name + " (compute capability " + std::to_string(d.major) + "." +
                          std::to_string(d.minor) + ") is older than the 7.5 the kernels need");
  impl->target = ptx_target(d.major);
  impl->info = {d.name, impl->target.gpu, d.major, d.minor, d.memory, d.driver_version};
  return std::unique_ptr<GpuCounter>(new GpuCounter(std::move(impl)));
}

const GpuDeviceInfo& GpuCounter::device() const { return impl_->info; }

AvalancheCounts GpuCounter::counts_exact(const mixer::Program& program, const std::atomic<bool>* cancel) const {
  return std::move(impl_->exact(std::span<const mixer::Program>(&program, 1), cancel).front());
}

std::vector<AvalancheCounts> GpuCounter::counts_exact_batch(std::span<const mixer::Program> programs) const {
  return impl_->exact(programs, nullptr);
}

AvalancheCounts GpuCounter::counts_sampled(const mixer::Program& program, std::uint64_t seed, std::uint64_t first,
                                           std::uint64_t count) const {
  std::span<const mixer::Program> one(&program, 1);
  check_batch(one, false);
  const int n = program.width();
  if (count == 0) {
    AvalancheCounts c = AvalancheCounts::zero(n, false);
    return c;
  }
  if (first + count < first) throw std::invalid_argument("gpu counts: sample range overflows");
  std::lock_guard lock(impl_->mu);
  auto flat = impl_->run(impl_->kernel_for(one, false), 1, n, first, first + count, seed, ~std::uint64_t{0} >> 1,
                         jit::sampled_granule(impl_->kernels), nullptr);
  return std::move(unpack(flat, 1, n, count, false).front());
}

// ---- the host's warp simulator ----

namespace {
std::vector<AvalancheCounts> simulate(std::span<const mixer::Program> programs, jit::WarpSimulator::Kind kind,
                                      const jit::CountKernelOptions& kernels, std::uint64_t seed, std::uint64_t first,
                                      std::uint64_t end) {
  const bool exact = kind == jit::WarpSimulator::Kind::exact;
  const jit::WarpSimulator sim(programs, kernels, exact ? jit::CountKernels::exact : jit::CountKernels::sampled);
  const int n = programs.front().width();
  std::vector<std::uint64_t> flat(programs.size() * static_cast<std::size_t>(n) * n, 0);
  // Few warps, so that each simulated warp runs many trips as a GPU warp does. Sampled
  // plans take whole warps only (not whole tiles, as the GPU's do): that way tests cut
  // tiles too.
  const WarpPlan plan = plan_warps(end - first, 64, exact ? sim.exact_granule() : 32);
  tbb::parallel_for(std::uint64_t{0}, plan.warps * programs.size(), [&](std::uint64_t job) {
    sim.run_warp(kind, flat.data(), first, end, plan.per_warp, seed, job % plan.warps,
                 static_cast<std::uint32_t>(job / plan.warps));
  });
  return unpack(flat, programs.size(), n, end - first, exact);
}
}  // namespace

std::vector<AvalancheCounts> simulate_gpu_counts_exact(std::span<const mixer::Program> programs,
                                                       const jit::CountKernelOptions& kernels) {
  check_batch(programs, true);
  return simulate(programs, jit::WarpSimulator::Kind::exact, kernels, 0, 0,
                  std::uint64_t{1} << programs.front().width());
}

std::vector<AvalancheCounts> simulate_gpu_counts_sampled(std::span<const mixer::Program> programs, std::uint64_t seed,
                                                         std::uint64_t first, std::uint64_t count,
                                                         const jit::CountKernelOptions& kernels) {
  check_batch(programs, false);
  if (first + count < first) throw std::invalid_argument("gpu counts: sample range overflows");
  return simulate(programs, jit::WarpSimulator::Kind::sampled, kernels, seed, first, first + count);
}

}  // namespace mixforge::avalanche
