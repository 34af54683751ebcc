// bench_gpu [--out DIR]: the GPU evaluator against the CPU, measured in the same run.
//   1. exact lowbias32 (2^32 inputs): GPU time including PTX compile and module load (the
//      first call) and warm (later calls), against the CPU's JIT exact count; then each
//      exact kernel (jit::CountKernelOptions: direct, tiles of 8, 16, 32), warm, as ratios
//      to the direct kernel measured in the same run;
//   2. batched exact scoring: random 32-bit 5-step programs per second, batches of 16;
//   3. sampled 2^24 inputs of lowbias32, GPU against CPU.
// Counts are compared for equality on every measured call. Writes DIR/gpu.txt (default
// bench/results/gpu). Without a CUDA GPU it says why and exits 0 without writing.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "avalanche/cuda_driver.hpp"
#include "avalanche/evaluator.hpp"
#include "avalanche/gpu_counter.hpp"
#include "evolver/random_program.hpp"
#include "evolver/rng.hpp"
#include "evolver/run_config.hpp"
#include "mixer/text_form.hpp"

using namespace mixforge;
using Clock = std::chrono::steady_clock;

namespace {
double seconds(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

template <class F>
double timed(F&& f) {
  const auto t = Clock::now();
  f();
  return seconds(t);
}
}  // namespace

int main(int argc, char** argv) {
  std::filesystem::path out = "bench/results/gpu";
  for (int i = 1; i + 1 < argc; ++i)
    if (std::string(argv[i]) == "--out") out = argv[i + 1];
  std::unique_ptr<GpuCounter> gpu;
  try {
    gpu = GpuCounter::open();
  } catch (const cuda::CudaError& e) {
    std::printf("bench_gpu: skipped, no CUDA GPU here: %s\n", e.what());
    return 0;
  }
  const auto cpu = Evaluator::with_own_engine();
  std::ostringstream r;
  const GpuDeviceInfo& d = gpu->device();
  r << "device: " << d.name << ", compute " << d.compute_major << "." << d.compute_minor << ", PTX target "
    << d.architecture << ", driver " << d.driver_version << "\n";
  const Program lowbias = parse_program("x ^= x >> 16; x *= 0x7feb352d; x ^= x >> 15; x *= 0x846ca68b; x ^= x >> 16;");
  bool equal = true;

  // 1. exact lowbias32.
  AvalancheCounts g, c;
  const double first = timed([&] { g = gpu->counts_exact(lowbias); });
  std::vector<double> warm;
  for (int k = 0; k < 5; ++k) warm.push_back(timed([&] { g = gpu->counts_exact(lowbias); }));
  std::sort(warm.begin(), warm.end());
  const double cpu_s = timed([&] { c = cpu->counts_exact(lowbias); });
  equal = equal && g.flips == c.flips;
  char line[256];
  std::snprintf(line, sizeof line,
                "exact lowbias32 (default kernel, exact_tile %u): GPU first call %.1f ms (compile + load + count), "
                "warm median %.1f ms; CPU (JIT, this machine) %.0f ms -> %.0fx\n",
                jit::CountKernelOptions{}.exact_tile, first * 1e3, warm[2] * 1e3, cpu_s * 1e3, cpu_s / warm[2]);
  r << line;
  double direct_ms = 0;
  for (unsigned tile : {0u, 8u, 16u, 32u}) {
    const auto counter = GpuCounter::open({tile});
    counter->counts_exact(lowbias);  // compile and load
    std::vector<double> times;
    for (int k = 0; k < 5; ++k) times.push_back(timed([&] { g = counter->counts_exact(lowbias); }));
    std::sort(times.begin(), times.end());
    equal = equal && g.flips == c.flips;
    const double ms = times[2] * 1e3;
    if (tile == 0) direct_ms = ms;
    std::snprintf(line, sizeof line, "  exact kernel %-9s warm median %.1f ms (min %.1f) -> %.2fx the direct kernel\n",
                  tile == 0 ? "direct:" : ("tile " + std::to_string(tile) + ":").c_str(), ms, times[0] * 1e3,
                  direct_ms / ms);
    r << line;
  }

  // 2. batched exact scoring of random programs.
  evolver::ProgramShape shape;
  shape.width = 32;
  shape.min_steps = 5;
  shape.max_steps = 5;
  shape.kinds = evolver::usable_kinds(evolver::RunConfig{}.kinds(), 32);
  evolver::Rng rng(7, 0);
  std::vector<Program> batch;
  for (int k = 0; k < 16; ++k) batch.push_back(evolver::random_program(shape, rng));
  std::vector<AvalancheCounts> gb;
  const double batch_first = timed([&] { gb = gpu->counts_exact_batch(batch); });
  const double batch_warm = timed([&] { gb = gpu->counts_exact_batch(batch); });
  equal = equal && gb[3].flips == cpu->counts_exact(batch[3]).flips;
  std::snprintf(line, sizeof line,
                "exact batches of 16 random 5-step programs: %.1f programs/s warm (%.2f s per batch; first batch "
                "%.2f s with compile)\n",
                16 / batch_warm, batch_warm, batch_first);
  r << line;

  // 3. sampled 2^24.
  const std::uint64_t n = std::uint64_t{1} << 24;
  gpu->counts_sampled(lowbias, 9, 0, n);  // compile and load
  const double gs = timed([&] { g = gpu->counts_sampled(lowbias, 9, 0, n); });
  const double cs = timed([&] { c = cpu->counts_sampled(lowbias, 9, 0, n); });
  equal = equal && g.flips == c.flips;
  std::snprintf(line, sizeof line, "sampled 2^24 lowbias32: GPU %.2f ms, CPU (one thread) %.1f ms -> %.0fx\n", gs * 1e3,
                cs * 1e3, cs / gs);
  r << line;
  r << "counts equal to the CPU's: " << (equal ? "yes" : "NO") << "\n";
  std::fputs(r.str().c_str(), stdout);
  std::filesystem::create_directories(out);
  std::ofstream(out / "gpu.txt") << r.str();
  return equal ? 0 : 1;
}
