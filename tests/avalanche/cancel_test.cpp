// Exact counts stop early when their cancel flag turns true.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "avalanche/evaluator.hpp"
#include "mixer/text_form.hpp"

using namespace mixforge;

namespace {
const mixer::Program triple32 = mixer::parse_program(
    "x ^= x >> 17; x *= 0xed5ad4bb; x ^= x >> 11; x *= 0xac4c1b51; x ^= x >> 15; x *= 0x31848bab; x ^= x >> 14;");
}

TEST(ExactCancel, APresetFlagStopsBothBackEnds) {
  std::atomic<bool> cancel{true};
  const auto jit = avalanche::Evaluator::with_own_engine();
  EXPECT_THROW(jit->counts_exact(triple32, &cancel), avalanche::EvaluationCancelled);
  const avalanche::Evaluator reference(nullptr);
  EXPECT_THROW(reference.counts_exact(mixer::parse_program("x ^= x >> 9; x *= 0x2b", {.width = 20}), &cancel),
               avalanche::EvaluationCancelled);
}

TEST(ExactCancel, AFlagSetDuringTheCountStopsIt) {
  const auto jit = avalanche::Evaluator::with_own_engine();
  std::atomic<bool> cancel{false};
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    cancel = true;
  });
  // 2^32 inputs of a 7-step program take seconds; the flag arrives long before the end.
  EXPECT_THROW(jit->counts_exact(triple32, &cancel), avalanche::EvaluationCancelled);
  canceller.join();
}

TEST(ExactCancel, AnUnsetFlagChangesNothing) {
  std::atomic<bool> cancel{false};
  const auto jit = avalanche::Evaluator::with_own_engine();
  const mixer::Program p =
      mixer::parse_program("x ^= x >> 8; x *= 0x88b5; x ^= x >> 7; x *= 0xdb2d; x ^= x >> 9", {.width = 16});
  EXPECT_EQ(jit->counts_exact(p, &cancel).flips, jit->counts_exact(p).flips);
}
