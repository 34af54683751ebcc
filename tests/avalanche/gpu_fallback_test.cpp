// --device auto with a GPU that fails while scoring: the CPU takes over, with the same
// counts, one notice and a report that says why; --device gpu keeps the failure an error.
// The failures are injected (GpuFault, MIXFORGE_FAULT_GPU): on a machine without a GPU
// the "GPU" is the stand-in GpuCounter::open makes for a fault, on a GPU machine the real
// device, failing at the same calls.
#include <gtest/gtest.h>

#include <cstdlib>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "avalanche/gpu/cuda_driver.hpp"
#include "avalanche/gpu/device.hpp"
#include "avalanche/evaluator.hpp"
#include "avalanche/gpu/gpu_counter.hpp"
#include "support/random_program.hpp"
#include "support/same_counts.hpp"

namespace mixforge::avalanche {
namespace {

using testing::expect_same_counts;

const avalanche::Evaluator& cpu_scores() {
  static const auto e = avalanche::Evaluator::with_own_engine();
  return *e;
}

// Wider than interpreted_exact_max_width: exact counts of it are routed to the GPU.
mixer::Program wide_exact_program(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  return testing::random_program(rng, 24, 5);
}

// The reasons a fallback listener was given, in order.
struct Notices {
  std::mutex mu;
  std::vector<std::string> reasons;
  void listen(avalanche::GpuFallback& f) {
    f.on_fall_back([this](const std::string& reason) {
      std::lock_guard lock(mu);
      reasons.push_back(reason);
    });
  }
};

TEST(GpuFallback, ParsesTheFaultAndNamesABadOne) {
  EXPECT_EQ(avalanche::parse_gpu_fault(""), avalanche::GpuFault::none);
  EXPECT_EQ(avalanche::parse_gpu_fault("load"), avalanche::GpuFault::load);
  EXPECT_EQ(avalanche::parse_gpu_fault("launch"), avalanche::GpuFault::launch);
  try {
    avalanche::parse_gpu_fault("sometimes");
    FAIL() << "sometimes accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()), "MIXFORGE_FAULT_GPU=\"sometimes\" is not one of load, launch");
  }
  // The environment is read by select_device only when a GPU may be opened.
  ASSERT_EQ(setenv("MIXFORGE_FAULT_GPU", "sometimes", 1), 0);
  EXPECT_THROW(avalanche::select_device(avalanche::Device::automatic), std::invalid_argument);
  EXPECT_EQ(avalanche::select_device(avalanche::Device::cpu).kind, "cpu");
  ASSERT_EQ(setenv("MIXFORGE_FAULT_GPU", "load", 1), 0);
  const avalanche::DeviceSelection faulty = avalanche::select_device(avalanche::Device::automatic);
  unsetenv("MIXFORGE_FAULT_GPU");
  EXPECT_EQ(faulty.kind, "gpu");
  ASSERT_NE(faulty.gpu, nullptr);
  EXPECT_NE(faulty.fallback, nullptr);
}

TEST(GpuFallback, AutoScoresOnTheCpuWhenAModuleLoadFails) {
  const avalanche::DeviceSelection device =
      avalanche::select_device(avalanche::Device::automatic, avalanche::GpuFault::load);
  ASSERT_EQ(device.kind, "gpu") << device.note;
  ASSERT_NE(device.fallback, nullptr) << "auto with a GPU records a fallback";
  EXPECT_EQ(avalanche::device_json(device), (nlohmann::json{{"kind", "gpu"}, {"name", device.name}}));
  Notices notices;
  notices.listen(*device.fallback);
  auto ev = avalanche::Evaluator::with_own_engine();
  ev->use_device(device, 1 << 12);
  EXPECT_EQ(ev->gpu(), device.gpu.get());

  const mixer::Program p = wide_exact_program(1);
  expect_same_counts(cpu_scores().counts_exact(p), ev->counts_exact(p), p);
  EXPECT_TRUE(device.fallback->happened());
  EXPECT_EQ(ev->gpu(), nullptr) << "the CPU scores from now on";
  const std::string reason = "cuda: cuModuleLoadDataEx failed: an injected fault (MIXFORGE_FAULT_GPU=load)";
  EXPECT_EQ(device.fallback->reason(), reason);
  const nlohmann::json report = avalanche::device_json(device);
  EXPECT_EQ(report["kind"], "cpu");
  EXPECT_EQ(report["name"], "cpu");
  EXPECT_EQ(report["fallback"], (nlohmann::json{{"from", device.name}, {"reason", reason}}));
  EXPECT_NE(report["note"].get<std::string>().find(reason), std::string::npos) << report.dump();

  // Later calls, sampled too, go to the CPU without a second notice.
  const mixer::Program q = wide_exact_program(2);
  expect_same_counts(cpu_scores().counts_exact(q), ev->counts_exact(q), q);
  expect_same_counts(cpu_scores().counts_sampled(q, 3, 5, 1 << 14), ev->counts_sampled(q, 3, 5, 1 << 14), q);
  std::lock_guard lock(notices.mu);
  EXPECT_EQ(notices.reasons, std::vector<std::string>{reason});
}

TEST(GpuFallback, AutoScoresOnTheCpuWhenALaunchFails) {
  const avalanche::DeviceSelection device =
      avalanche::select_device(avalanche::Device::automatic, avalanche::GpuFault::launch);
  ASSERT_NE(device.fallback, nullptr);
  Notices notices;
  notices.listen(*device.fallback);
  auto ev = avalanche::Evaluator::with_own_engine();
  ev->use_device(device, 1 << 12);
  // Sampled counts of at least min_samples go to the GPU; any width.
  std::mt19937_64 rng(7);
  const mixer::Program p = testing::random_program(rng, 40, 5);
  expect_same_counts(cpu_scores().counts_sampled(p, 9, 100, 1 << 13), ev->counts_sampled(p, 9, 100, 1 << 13), p);
  EXPECT_EQ(device.fallback->reason(), "cuda: cuLaunchKernel failed: an injected fault (MIXFORGE_FAULT_GPU=launch)");
  std::lock_guard lock(notices.mu);
  EXPECT_EQ(notices.reasons.size(), 1u);
}

TEST(GpuFallback, EvaluatorsSharingTheGpuFallBackTogether) {
  // The daemon's evaluator and its run manager's share one selection: a failure in one
  // moves both, and /healthz reports it once.
  const avalanche::DeviceSelection device =
      avalanche::select_device(avalanche::Device::automatic, avalanche::GpuFault::load);
  ASSERT_NE(device.fallback, nullptr);
  auto a = avalanche::Evaluator::with_own_engine();
  auto b = avalanche::Evaluator::with_own_engine();
  a->use_device(device);
  b->use_device(device);
  const mixer::Program p = wide_exact_program(3);
  a->counts_exact(p);
  EXPECT_EQ(b->gpu(), nullptr);
}

TEST(GpuFallback, ManyThreadsFallBackOnceWithTheCpusCounts) {
  const avalanche::DeviceSelection device =
      avalanche::select_device(avalanche::Device::automatic, avalanche::GpuFault::launch);
  ASSERT_NE(device.fallback, nullptr);
  Notices notices;
  notices.listen(*device.fallback);
  auto ev = avalanche::Evaluator::with_own_engine();
  ev->use_device(device, 1 << 10);
  std::mt19937_64 rng(11);
  const mixer::Program p = testing::random_program(rng, 33, 4);
  const avalanche::AvalancheCounts want = cpu_scores().counts_sampled(p, 1, 0, 1 << 12);
  std::vector<avalanche::AvalancheCounts> got(8);
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < got.size(); ++t)
    threads.emplace_back([&, t] { got[t] = ev->counts_sampled(p, 1, 0, 1 << 12); });
  for (auto& t : threads) t.join();
  for (const avalanche::AvalancheCounts& c : got) expect_same_counts(want, c, p);
  std::lock_guard lock(notices.mu);
  EXPECT_EQ(notices.reasons.size(), 1u);
}

TEST(GpuFallback, ExplicitGpuKeepsTheFailureAnError) {
  const avalanche::DeviceSelection device = avalanche::select_device(avalanche::Device::gpu, avalanche::GpuFault::load);
  ASSERT_NE(device.gpu, nullptr);
  EXPECT_EQ(device.fallback, nullptr) << "--device gpu: no fallback";
  auto ev = avalanche::Evaluator::with_own_engine();
  ev->use_device(device);
  const mixer::Program p = wide_exact_program(4);
  for (int attempt = 0; attempt < 2; ++attempt) {
    try {
      ev->counts_exact(p);
      FAIL() << "a failed module load was not reported";
    } catch (const avalanche::cuda::CudaError& e) {
      EXPECT_EQ(std::string(e.what()), "cuda: cuModuleLoadDataEx failed: an injected fault (MIXFORGE_FAULT_GPU=load)");
    }
  }
  EXPECT_EQ(ev->gpu(), device.gpu.get());
  EXPECT_EQ(avalanche::device_json(device)["kind"], "gpu");
}

TEST(GpuFallback, WithoutAFaultNoGpuMeansTheCpuAsBefore) {
  // No stand-in without a fault: auto on a machine without a GPU is the CPU, with why.
  const avalanche::DeviceSelection device =
      avalanche::select_device(avalanche::Device::automatic, avalanche::GpuFault::none);
  if (device.gpu) GTEST_SKIP() << "a GPU is here: " << device.name;
  EXPECT_EQ(device.kind, "cpu");
  EXPECT_EQ(device.fallback, nullptr);
  EXPECT_FALSE(device.note.empty());
  EXPECT_EQ(avalanche::device_json(device), (nlohmann::json{{"kind", "cpu"}, {"name", "cpu"}, {"note", device.note}}));
}

}  // namespace
}  // namespace mixforge::avalanche
