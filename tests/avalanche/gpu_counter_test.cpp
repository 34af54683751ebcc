// The GPU evaluator's counting kernels. Three levels:
// - GpuSimulation: the kernels' IR compiled for the host (jit::WarpSimulator, a warp as a
//   32-lane vector) gives exactly the CPU's counts: the counting logic, no GPU needed;
// - GpuPtx: the same kernels as PTX, assembled by the CUDA toolkit's ptxas when installed;
// - GpuDevice (label gpu): on a CUDA GPU, exact and sampled counts equal the CPU's; skipped,
//   saying why, where no GPU and driver exist.
#include <gtest/gtest.h>

#include <filesystem>
#include <numeric>
#include <random>
#include <sstream>

#include "avalanche/gpu/cuda_driver.hpp"
#include "avalanche/gpu/device.hpp"
#include "avalanche/evaluator.hpp"
#include "avalanche/gpu/gpu_counter.hpp"
#include "jit/count_kernels.hpp"
#include "jit/warp_simulator.hpp"
#include "mixer/text_form.hpp"
#include "support/process.hpp"
#include "support/random_program.hpp"
#include "support/reference_functions.hpp"
#include "support/same_counts.hpp"

namespace mixforge::avalanche {
namespace {

const avalanche::Evaluator& cpu_evaluator() {
  static const auto e = avalanche::Evaluator::with_own_engine();
  return *e;
}

using testing::expect_same_counts;

TEST(Device, ParsesTheThreeChoicesAndNamesABadOne) {
  EXPECT_EQ(avalanche::parse_device("cpu"), avalanche::Device::cpu);
  EXPECT_EQ(avalanche::parse_device("gpu"), avalanche::Device::gpu);
  EXPECT_EQ(avalanche::parse_device("auto"), avalanche::Device::automatic);
  try {
    avalanche::parse_device("tpu");
    FAIL() << "tpu accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("\"tpu\""), std::string::npos) << e.what();
  }
  const avalanche::DeviceSelection cpu = avalanche::select_device(avalanche::Device::cpu);
  EXPECT_EQ(cpu.gpu, nullptr);
  EXPECT_EQ(cpu.kind, "cpu");
  EXPECT_TRUE(cpu.note.empty());
}

TEST(GpuWarpPlan, CutsRangesIntoWholeWarps) {
  EXPECT_EQ(avalanche::plan_warps(0, 64).warps, 0u);
  EXPECT_EQ(avalanche::plan_warps(1, 64).per_warp, 32u);
  EXPECT_EQ(avalanche::plan_warps(1, 64).warps, 1u);
  const avalanche::WarpPlan p = avalanche::plan_warps(std::uint64_t{1} << 32, 1u << 16);
  EXPECT_EQ(p.per_warp, 1u << 16);
  EXPECT_EQ(p.warps, 1u << 16);
  const avalanche::WarpPlan q = avalanche::plan_warps(1000001, 7);
  EXPECT_EQ(q.per_warp % 32, 0u);
  EXPECT_GE(q.per_warp * q.warps, 1000001u);
  EXPECT_LT(q.per_warp * (q.warps - 1), 1000001u);
  EXPECT_EQ(avalanche::plan_warps(std::uint64_t{1} << 40, 1).per_warp, jit::max_per_warp);
  // Tiled exact kernels take whole tiles.
  const avalanche::WarpPlan t = avalanche::plan_warps(std::uint64_t{1} << 20, 64, 512);
  EXPECT_EQ(t.per_warp, 1u << 14);
  const avalanche::WarpPlan u = avalanche::plan_warps(3 * 512, 2, 512);
  EXPECT_EQ(u.per_warp, 1024u);
  EXPECT_EQ(u.warps, 2u);
  EXPECT_EQ(avalanche::plan_warps(512, 64, 512).per_warp, 512u);
}

TEST(GpuWarpPlan, TheExactGranuleIsATileWhereTheDomainHoldsOne) {
  EXPECT_EQ(jit::exact_granule(32, {0}), 32u);
  EXPECT_EQ(jit::exact_granule(32, {}), 512u) << "the default tile, 16";
  EXPECT_EQ(jit::exact_granule(32, {16}), 512u);
  EXPECT_EQ(jit::exact_granule(9, {16}), 512u);
  EXPECT_EQ(jit::exact_granule(8, {16}), 32u) << "2^8 < 512: counted directly";
  EXPECT_EQ(jit::exact_granule(10, {32}), 1024u);
  EXPECT_EQ(jit::exact_granule(8, {8}), 256u);
  EXPECT_EQ(jit::exact_granule(40, {16}), 32u) << "no exact kernel above 32 bits";
  EXPECT_EQ(jit::sampled_granule({16}), 512u);
  EXPECT_EQ(jit::sampled_granule({0}), 32u);
  EXPECT_THROW(jit::sampled_granule({7}), std::invalid_argument);
  try {
    jit::exact_granule(32, {12});
    FAIL() << "tile 12 accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("tile"), std::string::npos) << e.what();
  }
}

void expect_simulated_exact_equals_cpu(std::mt19937_64& rng, int width, unsigned tile) {
  SCOPED_TRACE("width " + std::to_string(width) + ", tile " + std::to_string(tile));
  const std::vector<mixer::Program> batch{testing::random_program(rng, width, 3),
                                          testing::random_program(rng, width, 6)};
  const auto got = avalanche::simulate_gpu_counts_exact(batch, {tile});
  ASSERT_EQ(got.size(), batch.size());
  for (std::size_t k = 0; k < batch.size(); ++k)
    expect_same_counts(cpu_evaluator().counts_exact(batch[k]), got[k], batch[k]);
}

void expect_simulated_sampled_equals_cpu(std::mt19937_64& rng, int width, unsigned tile = 16) {
  SCOPED_TRACE("width " + std::to_string(width) + ", tile " + std::to_string(tile));
  const std::vector<mixer::Program> batch{testing::random_program(rng, width, 3),
                                          testing::random_program(rng, width, 5)};
  // An unaligned range, as staged scoring extends a stream: samples [1000, 1000 + 5003).
  const auto got = avalanche::simulate_gpu_counts_sampled(batch, 99, 1000, 5003, {tile});
  for (std::size_t k = 0; k < batch.size(); ++k)
    expect_same_counts(cpu_evaluator().counts_sampled(batch[k], 99, 1000, 5003), got[k], batch[k]);
}

// The direct exact kernel (tile 0): widths below, at and above the 5 bits that warp
// shuffles cover. (Every width 1..22 takes the default kernel, below: host runs are slow.)
TEST(GpuSimulation, DirectExactCountsEqualTheCpusAtEdgeWidths) {
  std::mt19937_64 rng(2026);
  for (int width : {1, 4, 5, 6, 11, 16, 22}) expect_simulated_exact_equals_cpu(rng, width, 0);
}

// Per tile T: the widths below 32 T (counted directly), the first tiled width, the width
// where every partner is in the tile (5 + log2 T), and widths with fresh partners above it.
TEST(GpuSimulation, TiledExactCountsEqualTheCpusAtEdgeWidths) {
  std::mt19937_64 rng(2028);
  for (int width : {7, 8, 9, 10, 13}) expect_simulated_exact_equals_cpu(rng, width, 8);
  for (int width : {8, 9, 10, 14}) expect_simulated_exact_equals_cpu(rng, width, 16);
  for (int width : {9, 10, 11, 12}) expect_simulated_exact_equals_cpu(rng, width, 32);
}

TEST(GpuSimulation, TiledExactCountsEqualTheCpusForEveryWidthUpTo22) {
  std::mt19937_64 rng(2029);
  for (int width = 1; width <= 22; ++width) expect_simulated_exact_equals_cpu(rng, width, 16);
}

TEST(GpuSimulation, TheDefaultExactKernelIsTheTiledOne) {
  EXPECT_EQ(jit::CountKernelOptions{}.tile, 16u);
  std::mt19937_64 rng(2030);
  const std::vector<mixer::Program> one{testing::random_program(rng, 12, 5)};
  EXPECT_EQ(jit::WarpSimulator(one).exact_granule(), 512u);
  expect_same_counts(cpu_evaluator().counts_exact(one[0]), avalanche::simulate_gpu_counts_exact(one).front(), one[0]);
}

TEST(GpuSimulation, TiledLowbias32CountsEqualTheDirectKernelsWarpByWarp) {
  // 32 bits on the host is too slow in full: take warps at both ends of the domain and a
  // few tiles in, and compare with the direct kernel (tested against the CPU above).
  const std::vector<mixer::Program> one{test::lowbias32()};
  const jit::WarpSimulator direct(one, {0}), tiled(one, {16});
  const std::uint64_t per_warp = 1u << 14;
  for (std::uint64_t warp : {std::uint64_t{0}, std::uint64_t{3}, (std::uint64_t{1} << 32) / per_warp - 1}) {
    std::vector<std::uint64_t> a(32 * 32, 0), b(32 * 32, 0);
    direct.run_warp(jit::WarpSimulator::Kind::exact, a.data(), 0, std::uint64_t{1} << 32, per_warp, 0, warp, 0);
    tiled.run_warp(jit::WarpSimulator::Kind::exact, b.data(), 0, std::uint64_t{1} << 32, per_warp, 0, warp, 0);
    EXPECT_EQ(a, b) << "warp " << warp;
  }
}

TEST(GpuSimulation, TheTiledKernelRefusesRangesThatCutATile) {
  std::mt19937_64 rng(5);
  const std::vector<mixer::Program> one{testing::random_program(rng, 12, 4)};
  const jit::WarpSimulator sim(one, {16});
  EXPECT_EQ(sim.exact_granule(), 512u);
  std::vector<std::uint64_t> counts(12 * 12, 0);
  EXPECT_THROW(sim.run_warp(jit::WarpSimulator::Kind::exact, counts.data(), 0, 4096, 256, 0, 0, 0),
               std::invalid_argument);
  EXPECT_THROW(sim.run_warp(jit::WarpSimulator::Kind::exact, counts.data(), 32, 4096, 512, 0, 0, 0),
               std::invalid_argument);
  EXPECT_THROW(jit::WarpSimulator(one, {24}), std::invalid_argument);
}

TEST(GpuSimulation, SampledCountsEqualTheCpusBitForBitAtEdgeWidths) {
  std::mt19937_64 rng(7);
  for (int width : {1, 7, 32, 33, 64}) expect_simulated_sampled_equals_cpu(rng, width);
}

TEST(GpuSimulation, DirectSampledCountsEqualTheCpusBitForBit) {
  std::mt19937_64 rng(9);
  for (int width : {1, 7, 32, 33, 64}) expect_simulated_sampled_equals_cpu(rng, width, 0);
}

TEST(GpuSimulation, SampledCountsEqualTheCpusBitForBitForEveryTile) {
  std::mt19937_64 rng(10);
  // A narrow and a wide width each (the default tile takes every edge above).
  for (unsigned tile : {8u, 32u})
    for (int width : {5, 40}) expect_simulated_sampled_equals_cpu(rng, width, tile);
}

TEST(GpuSimulation, SampledCountsEqualTheCpusBitForBitAtOddWidths) {
  std::mt19937_64 rng(8);
  for (int width : {13, 31, 40, 48}) expect_simulated_sampled_equals_cpu(rng, width);
}

TEST(GpuSimulation, Lowbias32SampledCountsEqualTheCpus) {
  const mixer::Program p = test::lowbias32();
  const std::vector<mixer::Program> one{p};
  expect_same_counts(cpu_evaluator().counts_sampled(p, 5, 0, 1 << 16),
                     avalanche::simulate_gpu_counts_sampled(one, 5, 0, 1 << 16).front(), p);
}

TEST(GpuSimulation, RejectsBadBatches) {
  EXPECT_THROW(avalanche::simulate_gpu_counts_exact(std::vector<mixer::Program>{}), std::invalid_argument);
  std::mt19937_64 rng(1);
  const std::vector<mixer::Program> mixed{testing::random_program(rng, 8, 3), testing::random_program(rng, 9, 3)};
  EXPECT_THROW(avalanche::simulate_gpu_counts_exact(mixed), std::invalid_argument);
  const std::vector<mixer::Program> wide{testing::random_program(rng, 33, 3)};
  EXPECT_THROW(avalanche::simulate_gpu_counts_exact(wide), std::invalid_argument);
  EXPECT_THROW(avalanche::simulate_gpu_counts_sampled(wide, 1, ~std::uint64_t{0} - 3, 10), std::invalid_argument);
}

// ---- PTX ----

std::string count_ptxas_path() {
  if (auto p = test::find_tool("ptxas"); !p.empty()) return p;
  if (std::filesystem::exists("/usr/local/cuda/bin/ptxas")) return "/usr/local/cuda/bin/ptxas";
  return {};
}

std::string assemble_ptx(const std::string& ptxas, const std::string& ptx, const std::string& gpu) {
  const test::TempDir dir("count-ptx");
  test::write_file(dir / "k.ptx", ptx);
  const auto r = test::run_command({ptxas, "-arch=" + gpu, "-o", (dir / "k.cubin").string(), (dir / "k.ptx").string()});
  if (r.exit_code != 0) return "ptxas exit " + std::to_string(r.exit_code) + ": " + r.output;
  return {};
}

TEST(GpuPtx, CountKernelsHaveBothEntriesAndWarpShuffles) {
  const std::vector<mixer::Program> batch{test::lowbias32(), test::lowbias32()};
  const std::string ptx = jit::emit_count_ptx(batch);
  EXPECT_NE(ptx.find(".visible .entry mixforge_exact("), std::string::npos) << ptx;
  EXPECT_NE(ptx.find(".visible .entry mixforge_sampled("), std::string::npos) << ptx;
  EXPECT_NE(ptx.find("shfl.sync.bfly"), std::string::npos) << ptx;
  EXPECT_NE(ptx.find("atom.global.add.u64"), std::string::npos) << ptx;
  EXPECT_NE(ptx.find("%ctaid.y"), std::string::npos) << "the batch index\n" << ptx;
  std::mt19937_64 rng(3);
  const std::vector<mixer::Program> wide{testing::random_program(rng, 64, 5)};
  const std::string wide_ptx = jit::emit_count_ptx(wide);
  EXPECT_EQ(wide_ptx.find("mixforge_exact"), std::string::npos) << "no exact kernel above 32 bits";
  EXPECT_NE(wide_ptx.find(".visible .entry mixforge_sampled("), std::string::npos);
}

TEST(GpuPtx, AModuleHoldsTheKernelsAskedFor) {
  const std::vector<mixer::Program> batch{test::lowbias32()};
  const jit::PtxOptions hopper{"sm_90", "+ptx80", ""};
  const std::string exact = jit::emit_count_ptx(batch, hopper, {}, jit::CountKernels::exact);
  EXPECT_NE(exact.find(".entry mixforge_exact("), std::string::npos);
  EXPECT_EQ(exact.find("mixforge_sampled"), std::string::npos);
  const std::string sampled = jit::emit_count_ptx(batch, hopper, {}, jit::CountKernels::sampled);
  EXPECT_EQ(sampled.find("mixforge_exact"), std::string::npos);
  EXPECT_NE(sampled.find(".entry mixforge_sampled("), std::string::npos);
  std::mt19937_64 rng(4);
  const std::vector<mixer::Program> wide{testing::random_program(rng, 40, 4)};
  try {
    jit::emit_count_ptx(wide, hopper, {}, jit::CountKernels::exact);
    FAIL() << "an exact kernel for 40 bits";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("width <= 32, not 40"), std::string::npos) << e.what();
  }
  const jit::WarpSimulator only_sampled(batch, {}, jit::CountKernels::sampled);
  std::vector<std::uint64_t> counts(32 * 32, 0);
  EXPECT_THROW(only_sampled.run_warp(jit::WarpSimulator::Kind::exact, counts.data(), 0, 1024, 512, 0, 0, 0),
               std::invalid_argument);
  only_sampled.run_warp(jit::WarpSimulator::Kind::sampled, counts.data(), 0, 64, 32, 1, 0, 0);
  EXPECT_GT(std::accumulate(counts.begin(), counts.end(), std::uint64_t{0}), 0u);
}

TEST(GpuPtx, TheTiledKernelsOfABatchShareOneCounterArray) {
  // 32 lane counters of 4 bytes (exact; sampled at 32 bits too): one array whatever the
  // batch size, since one program runs per block row.
  const std::vector<mixer::Program> batch{test::lowbias32(), test::lowbias32(), test::lowbias32()};
  const std::string ptx = jit::emit_count_ptx(batch, {"sm_90", "+ptx80", ""}, {16});
  std::size_t depots = 0;
  std::istringstream lines(ptx);
  for (std::string l; std::getline(lines, l);) {
    // ".local .align 4 .b8 __local_depot0[128];": a kernel's stack.
    const std::size_t at = l.find("__local_depot"), open = l.find('['), close = l.find(']');
    if (l.find(".local") == std::string::npos || at == std::string::npos || open == std::string::npos ||
        close == std::string::npos)
      continue;
    ++depots;
    EXPECT_EQ(l.substr(open + 1, close - open - 1), "128") << l;
  }
  EXPECT_EQ(depots, 2u) << "one stack array per kernel (exact and sampled)";
}

TEST(GpuPtx, PtxasAssemblesTheCountKernelsForHopperAndTheFallback) {
  const std::string ptxas = count_ptxas_path();
  if (ptxas.empty()) GTEST_SKIP() << "ptxas (CUDA toolkit) not found on PATH or in /usr/local/cuda/bin: PTX not assembled";
  // ptxas takes seconds on the unrolled 64-bit kernels: one batch per target.
  std::mt19937_64 rng(11);
  const std::vector<mixer::Program> narrow{test::lowbias32(), testing::random_program(rng, 32, 7)};
  const std::vector<mixer::Program> odd{testing::random_program(rng, 3, 4), testing::random_program(rng, 3, 6)};
  const std::vector<mixer::Program> wide{testing::random_program(rng, 64, 5)};
  EXPECT_EQ(assemble_ptx(ptxas, jit::emit_count_ptx(narrow, {"sm_90", "+ptx80", ""}), "sm_90"), "");
  EXPECT_EQ(assemble_ptx(ptxas, jit::emit_count_ptx(wide, {"sm_90", "+ptx80", ""}), "sm_90"), "");
  EXPECT_EQ(assemble_ptx(ptxas, jit::emit_count_ptx(odd, {"sm_75", "+ptx64", ""}), "sm_75"), "");
  for (unsigned tile : {8u, 16u, 32u}) {
    SCOPED_TRACE("tile " + std::to_string(tile));
    EXPECT_EQ(assemble_ptx(ptxas, jit::emit_count_ptx(narrow, {"sm_90", "+ptx80", ""}, {tile}), "sm_90"), "");
  }
  EXPECT_EQ(assemble_ptx(ptxas, jit::emit_count_ptx(narrow, {"sm_75", "+ptx64", ""}, {16}), "sm_75"), "");
}

// ---- a real GPU (label gpu) ----

std::unique_ptr<avalanche::GpuCounter> open_gpu() {
  try {
    return avalanche::GpuCounter::open();
  } catch (const avalanche::cuda::CudaError& e) {
    std::cout << "[  SKIPPED ] no CUDA GPU here: " << e.what() << "\n";
    return nullptr;
  }
}

TEST(GpuDevice, ExactCountsEqualTheCpusForReferenceFunctions) {
  auto gpu = open_gpu();
  if (!gpu) GTEST_SKIP() << "no CUDA GPU (see the line above)";
  std::cout << "device: " << gpu->device().name << " (" << gpu->device().architecture << ")\n";
  for (const auto& m : test::reference_mixers()) {
    if (m.width > 32) continue;
    const mixer::Program p = mixer::parse_program(m.text, {.width = m.width});
    expect_same_counts(cpu_evaluator().counts_exact(p), gpu->counts_exact(p), p);
  }
}

TEST(GpuDevice, ExactCountsEqualTheCpusForRandomProgramsOfEveryWidth) {
  auto gpu = open_gpu();
  if (!gpu) GTEST_SKIP() << "no CUDA GPU (see the line above)";
  std::mt19937_64 rng(12);
  for (int width = 1; width <= 32; ++width) {
    SCOPED_TRACE("width " + std::to_string(width));
    std::vector<mixer::Program> batch{testing::random_program(rng, width, 5), testing::random_program(rng, width, 7)};
    const auto got = gpu->counts_exact_batch(batch);
    for (std::size_t k = 0; k < batch.size(); ++k) expect_same_counts(cpu_evaluator().counts_exact(batch[k]), got[k], batch[k]);
  }
}

TEST(GpuDevice, EveryKernelCountsLikeTheCpu) {
  std::mt19937_64 rng(14);
  std::vector<std::vector<mixer::Program>> batches{{test::lowbias32()}};
  for (int width : {5, 8, 9, 10, 13, 20, 32})
    batches.push_back({testing::random_program(rng, width, 4), testing::random_program(rng, width, 7)});
  std::vector<mixer::Program> sampled;
  for (int width : {7, 32, 33, 64}) sampled.push_back(testing::random_program(rng, width, 5));
  std::vector<std::vector<avalanche::AvalancheCounts>> want_exact;
  std::vector<avalanche::AvalancheCounts> want_sampled;
  for (unsigned tile : {0u, 8u, 16u, 32u}) {
    SCOPED_TRACE("tile " + std::to_string(tile));
    std::unique_ptr<avalanche::GpuCounter> gpu;
    try {
      gpu = avalanche::GpuCounter::open({tile});
    } catch (const avalanche::cuda::CudaError& e) {
      std::cout << "[  SKIPPED ] no CUDA GPU here: " << e.what() << "\n";
      GTEST_SKIP() << "no CUDA GPU: " << e.what();
    }
    if (want_exact.empty()) {  // the CPU's counts, once for every option
      for (const auto& batch : batches) {
        want_exact.emplace_back();
        for (const mixer::Program& p : batch) want_exact.back().push_back(cpu_evaluator().counts_exact(p));
      }
      for (const mixer::Program& p : sampled)
        want_sampled.push_back(cpu_evaluator().counts_sampled(p, 4, 777, 1 << 20));
    }
    for (std::size_t b = 0; b < batches.size(); ++b) {
      const auto got = gpu->counts_exact_batch(batches[b]);
      for (std::size_t k = 0; k < batches[b].size(); ++k) expect_same_counts(want_exact[b][k], got[k], batches[b][k]);
    }
    for (std::size_t k = 0; k < sampled.size(); ++k)
      expect_same_counts(want_sampled[k], gpu->counts_sampled(sampled[k], 4, 777, 1 << 20), sampled[k]);
  }
}

TEST(GpuDevice, SampledCountsEqualTheCpusBitForBit) {
  auto gpu = open_gpu();
  if (!gpu) GTEST_SKIP() << "no CUDA GPU (see the line above)";
  std::mt19937_64 rng(13);
  for (int width = 1; width <= 64; width += 3) {
    SCOPED_TRACE("width " + std::to_string(width));
    const mixer::Program p = testing::random_program(rng, width, 6);
    expect_same_counts(cpu_evaluator().counts_sampled(p, 21, 12345, 1 << 20), gpu->counts_sampled(p, 21, 12345, 1 << 20), p);
  }
}

TEST(GpuDevice, AnEvaluatorWithTheGpuScoresLikeTheCpu) {
  auto gpu = open_gpu();
  if (!gpu) GTEST_SKIP() << "no CUDA GPU (see the line above)";
  auto ev = avalanche::Evaluator::with_own_engine();
  ev->use_gpu(std::move(gpu), 1 << 20);
  const mixer::Program p = test::lowbias32();
  EXPECT_EQ(ev->exact(p).chi2, cpu_evaluator().exact(p).chi2);
  EXPECT_EQ(ev->sampled(p, 1 << 22, 3).chi2, cpu_evaluator().sampled(p, 1 << 22, 3).chi2);
}

TEST(GpuDevice, AutoFindsTheGpuThatGpuRequires) {
  const avalanche::DeviceSelection a = avalanche::select_device(avalanche::Device::automatic);
  if (!a.gpu) {
    std::cout << "[  SKIPPED ] no CUDA GPU here: " << a.note << "\n";
    EXPECT_THROW(avalanche::select_device(avalanche::Device::gpu), std::runtime_error);
    GTEST_SKIP() << "no CUDA GPU: " << a.note;
  }
  EXPECT_EQ(a.kind, "gpu");
  EXPECT_NE(avalanche::select_device(avalanche::Device::gpu).gpu, nullptr);
}

}  // namespace
}  // namespace mixforge::avalanche
