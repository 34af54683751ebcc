#include "evolver/search/early_reject.hpp"

#include <algorithm>

namespace mixforge::evolver {

Estimate estimate_of(const avalanche::Score& s) {
  return Estimate{s.exact ? s.chi2 : s.chi2_corrected, s.chi2_stderr, s.samples, s.exact};
}

double scoring_work(const mixer::Program& p, std::uint64_t inputs) {
  return double(inputs) * (p.width() + 1) * double(std::max<std::size_t>(p.size(), 1));
}

StagedChild staged_with_reject(const mixer::Program& p, std::uint64_t samples, std::uint64_t seed,
                               const EarlyReject& er, double threshold, const avalanche::Evaluator& main,
                               const avalanche::Evaluator* small, double small_limit) {
  auto pick = [&](std::uint64_t count) -> const avalanche::Evaluator& {
    return small && scoring_work(p, count) < small_limit ? *small : main;
  };
  StagedChild out;
  const double z = avalanche::normal_quantile(er.confidence);
  avalanche::GroupedCounts acc(p.width());
  std::uint64_t target = std::min(er.first_samples, samples);
  avalanche::Score s;
  for (;;) {
    std::uint64_t count = target - acc.trials();
    if (small && &pick(count) == &main && target < samples) {
      // A compiled kernel lives only for one call: once a stage needs one, go straight to
      // the last stage instead of compiling again for every stage (measured: rejects come
      // almost all from the first, interpreted stage; extra compiled stages cost more than
      // they save, bench_evolve evolve32).
      target = samples;
      count = target - acc.trials();
    }
    pick(count).extend_sampled(acc, p, seed, count);
    s = acc.score();
    const bool last = target >= samples;
    if (!last && er.enabled && s.chi2_corrected - z * s.chi2_stderr > threshold) {
      out.rejected = true;
      out.saved = samples - acc.trials();
      break;
    }
    if (last) break;
    target = std::min<std::uint64_t>(target * er.growth, samples);
  }
  out.estimate = estimate_of(s);
  out.samples = acc.trials();
  return out;
}

}  // namespace mixforge::evolver
