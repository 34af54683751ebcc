// evolver::SharedComputations: two requests for one quality report compute it once.
// Gates (promises), not sleeps, decide the order.
#include <gtest/gtest.h>

#include <future>
#include <thread>

#include <nlohmann/json.hpp>

#include "avalanche/counts.hpp"
#include "evolver/manager/quality_cache.hpp"

using mixforge::avalanche::EvaluationCancelled;
using mixforge::evolver::SharedComputations;

TEST(SharedComputations, ASecondCallerWaitsForTheFirstsResult) {
  SharedComputations shared;
  std::promise<void> entered, release;
  auto first = std::async(std::launch::async, [&] {
    return shared.run("f|standard", [&] {
      entered.set_value();
      release.get_future().wait();
      return nlohmann::json{{"computed_by", "first"}};
    });
  });
  entered.get_future().wait();
  EXPECT_EQ(shared.running(), 1u);
  int second_computed = 0;
  auto second = std::async(std::launch::async, [&] {
    return shared.run("f|standard", [&] {
      ++second_computed;
      return nlohmann::json{{"computed_by", "second"}};
    });
  });
  while (shared.waiting() == 0) std::this_thread::yield();  // the second is waiting now
  // Another key is not held up.
  EXPECT_EQ(shared.run("g|standard", [] { return nlohmann::json{{"computed_by", "other"}}; })["computed_by"], "other");
  release.set_value();
  EXPECT_EQ(first.get()["computed_by"], "first");
  EXPECT_EQ(second.get()["computed_by"], "first");
  EXPECT_EQ(second_computed, 0);
  EXPECT_EQ(shared.running(), 0u);
}

TEST(SharedComputations, ACancelledComputationIsTakenOverAndErrorsAreShared) {
  SharedComputations shared;
  std::promise<void> entered, release;
  auto first = std::async(std::launch::async, [&] {
    return shared.run("f|quick", [&]() -> nlohmann::json {
      entered.set_value();
      release.get_future().wait();
      throw mixforge::avalanche::EvaluationCancelled();  // its client went away
    });
  });
  entered.get_future().wait();
  auto second = std::async(std::launch::async, [&] {
    return shared.run("f|quick", [] { return nlohmann::json{{"computed_by", "second"}}; });
  });
  while (shared.waiting() == 0) std::this_thread::yield();
  release.set_value();
  EXPECT_THROW(first.get(), mixforge::avalanche::EvaluationCancelled);
  EXPECT_EQ(second.get()["computed_by"], "second");

  // Any other error reaches the waiter too, and the key is free afterwards.
  std::promise<void> entered2, release2;
  auto failing = std::async(std::launch::async, [&] {
    return shared.run("h|quick", [&]() -> nlohmann::json {
      entered2.set_value();
      release2.get_future().wait();
      throw std::runtime_error("dieharder is not installed");
    });
  });
  entered2.get_future().wait();
  std::atomic<bool> never{false};
  auto waiter = std::async(std::launch::async, [&] { return shared.run("h|quick", [] { return nlohmann::json(1); }, &never); });
  while (shared.waiting() == 0) std::this_thread::yield();
  release2.set_value();
  EXPECT_THROW(failing.get(), std::runtime_error);
  try {
    waiter.get();
    ADD_FAILURE() << "the waiter shares the error";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "dieharder is not installed");
  }
  EXPECT_EQ(shared.waiting(), 0u);
  EXPECT_EQ(shared.running(), 0u);

  // A waiter whose own client goes away stops waiting.
  std::promise<void> entered3, release3;
  auto slow = std::async(std::launch::async, [&] {
    return shared.run("k|quick", [&] {
      entered3.set_value();
      release3.get_future().wait();
      return nlohmann::json(3);
    });
  });
  entered3.get_future().wait();
  std::atomic<bool> gone{true};
  EXPECT_THROW(shared.run(
                   "k|quick", [] { return nlohmann::json(4); }, &gone),
               mixforge::avalanche::EvaluationCancelled);
  release3.set_value();
  EXPECT_EQ(slow.get(), nlohmann::json(3));
}
