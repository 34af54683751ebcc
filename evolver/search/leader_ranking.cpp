#include "evolver/search/leader_ranking.hpp"

#include <algorithm>

#include "evolver/search/rng.hpp"

namespace mixforge::evolver {

std::vector<RescoreJob> plan_leader_rescoring(const Pool& pool, const RunConfig& config) {
  std::vector<RescoreJob> jobs;
  const auto& p = config.precision;
  if (p.leaders <= 0) return jobs;
  // Leader samples may go 4x past max_samples: only a handful of programs get there.
  const std::uint64_t leader_cap = p.max_samples * 4;
  for (std::size_t i : pool.top(static_cast<std::size_t>(p.leaders))) {
    const Member& m = pool[i];
    if (m.estimate.exact || m.estimate.samples >= leader_cap) continue;
    RescoreJob job{m.program, m.hash, false, 0, 0};
    job.samples = std::min(m.estimate.samples * 4, leader_cap);
    job.seed = mix_seed(config.seed ^ 0x6c656164ull, m.hash ^ job.samples);
    jobs.push_back(std::move(job));
  }
  return jobs;
}

std::vector<Member> exact_candidates(const Pool& pool, const RunConfig& config,
                                     std::optional<double> best_exact,
                                     const std::vector<std::uint64_t>& done) {
  std::vector<Member> out;
  const auto& p = config.precision;
  if (!p.exact_leaders || config.width > 32 || p.leaders <= 0) return out;
  const double z = 3.0;
  for (std::size_t i : pool.top(static_cast<std::size_t>(p.leaders))) {
    const Member& m = pool[i];
    if (m.estimate.exact || std::find(done.begin(), done.end(), m.hash) != done.end()) continue;
    // best_exact is a rank (chi2 plus the objective's penalty, which an exact score keeps).
    if (best_exact && !(m.estimate.chi2 + m.estimate.penalty - z * m.estimate.stderr_ < *best_exact)) continue;
    out.push_back(m);
  }
  return out;
}

RescoreResult run_rescore(const RescoreJob& job, const avalanche::Evaluator& evaluator) {
  const avalanche::Score s =
      job.exact ? evaluator.exact(job.program) : evaluator.sampled(job.program, job.samples, job.seed);
  return {job.hash, job.program, estimate_of(s)};
}

}  // namespace mixforge::evolver
