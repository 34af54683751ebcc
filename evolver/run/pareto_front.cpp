#include "evolver/run/pareto_front.hpp"

#include <algorithm>

namespace mixforge::evolver {
namespace {

bool depth_known(const ScoredFunction& f) { return f.objective && f.objective->rrc_depth_log2 > 0; }

// A function failing at the cap passed less than one passing it.
int survived(const ScoredFunction& f) { return rrc_passed_log2(*f.objective); }

}  // namespace

ParetoFront pareto_front(const std::vector<ScoredFunction>& functions) {
  ParetoFront front;
  const bool with_depth = std::any_of(functions.begin(), functions.end(), depth_known);
  front.objectives = with_depth ? std::vector<std::string>{"chi2", "rrc_depth_log2", "steps"}
                                : std::vector<std::string>{"chi2", "steps"};
  std::vector<const ScoredFunction*> candidates;
  for (const ScoredFunction& f : functions)
    if (!with_depth || depth_known(f)) candidates.push_back(&f);
  // a dominates b: no worse on every score and better on one.
  auto dominates = [&](const ScoredFunction& a, const ScoredFunction& b) {
    const bool no_worse = a.chi2 <= b.chi2 && a.steps <= b.steps && (!with_depth || survived(a) >= survived(b));
    const bool better = a.chi2 < b.chi2 || a.steps < b.steps || (with_depth && survived(a) > survived(b));
    return no_worse && better;
  };
  for (const ScoredFunction* f : candidates) {
    const bool dominated = std::any_of(candidates.begin(), candidates.end(),
                                       [&](const ScoredFunction* g) { return g != f && dominates(*g, *f); });
    // Two functions equal on every score are both on the front: the first is kept.
    const bool duplicate = std::any_of(front.items.begin(), front.items.end(), [&](const ScoredFunction& g) {
      return g.chi2 == f->chi2 && g.steps == f->steps && (!with_depth || survived(g) == survived(*f));
    });
    if (!dominated && !duplicate) front.items.push_back(*f);
  }
  std::stable_sort(front.items.begin(), front.items.end(),
                   [](const ScoredFunction& a, const ScoredFunction& b) { return a.chi2 < b.chi2; });
  return front;
}

}  // namespace mixforge::evolver
