// The Pareto front of a run's functions (evolver/run/pareto_front.hpp).
#include <gtest/gtest.h>

#include "evolver/run/pareto_front.hpp"

using namespace mixforge::evolver;

namespace {

ScoredFunction fn(const std::string& id, double chi2, int steps, int depth = 0, bool passed = false, int cap = 20) {
  ScoredFunction f;
  f.id = id;
  f.chi2 = chi2;
  f.steps = steps;
  if (depth > 0 || cap > 0) {
    ObjectiveTerms t;
    t.rrc_cap_log2 = cap;
    t.rrc_depth_log2 = depth;
    t.rrc_passed_cap = passed;
    f.objective = t;
  }
  return f;
}

std::vector<std::string> ids(const ParetoFront& f) {
  std::vector<std::string> out;
  for (const auto& x : f.items) out.push_back(x.id);
  return out;
}

}  // namespace

TEST(ParetoFront, KeepsWhatNothingBeatsOnEveryScore) {
  const ParetoFront f = pareto_front({
      fn("low-chi2-shallow", 5e-6, 5, 13), fn("deep", 6e-5, 5, 18),
      fn("dominated", 7e-5, 5, 17),  // deep beats it on both
      fn("deeper-than-cap", 2e-7, 7, 20, true),
      fn("fails-at-cap", 2e-7, 7, 20),                         // passed less than the one passing the cap
      fn("cheap", 1e-3, 3, 10), fn("unmeasured", 1e-7, 3, 0),  // depth unknown: not a point on the front
      fn("same-as-deep", 6e-5, 5, 18),                         // equal on every score: one of the two is kept
  });
  EXPECT_EQ(f.objectives, (std::vector<std::string>{"chi2", "rrc_depth_log2", "steps"}));
  EXPECT_EQ(ids(f), (std::vector<std::string>{"deeper-than-cap", "low-chi2-shallow", "deep", "cheap"}));
}

TEST(ParetoFront, WithoutDepthsChiSquareAndSteps) {
  std::vector<ScoredFunction> v{fn("a", 1e-5, 5, 0, false, 0), fn("b", 2e-5, 3, 0, false, 0),
                                fn("c", 3e-5, 5, 0, false, 0), fn("d", 1e-5, 7, 0, false, 0)};
  const ParetoFront f = pareto_front(v);
  EXPECT_EQ(f.objectives, (std::vector<std::string>{"chi2", "steps"}));
  EXPECT_EQ(ids(f), (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(pareto_front({}).items.empty());
}
