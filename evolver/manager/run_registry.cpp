#include "evolver/manager/run_registry.hpp"

#include <unistd.h>

#include "evolver/manager/process_lease.hpp"

namespace mixforge::evolver {

bool better(const ScoredFunction& a, const ScoredFunction& b) {
  const bool ae = a.exact || a.chi2_exact.has_value(), be = b.exact || b.chi2_exact.has_value();
  if (ae != be) return ae;
  return a.rank() < b.rank();
}
bool better(const HistoryPoint& a, const HistoryPoint& b) {
  if (a.best_exact != b.best_exact) return a.best_exact;
  return a.best_chi2 < b.best_chi2;
}

std::optional<ScoredFunction> best_of(std::optional<ScoredFunction> a, const std::optional<ScoredFunction>& b) {
  if (b && (!a || better(*b, *a))) return b;
  return a;
}

std::optional<ScoredFunction> islands_best(const std::vector<IslandStatus>& islands) {
  std::optional<ScoredFunction> best;
  for (const IslandStatus& i : islands) best = best_of(std::move(best), i.best);
  return best;
}

RunRegistry::RunRegistry(std::filesystem::path data_dir)
    : data_dir(std::move(data_dir)), pid(static_cast<int>(::getpid())) {}

std::shared_ptr<RunRegistry::Active> RunRegistry::find_active(const std::string& id) const {
  std::lock_guard lk(mu);
  auto it = active.find(id);
  return it == active.end() ? nullptr : it->second;
}

StoredRun RunRegistry::stored(const std::string& id) const {
  std::lock_guard lk(store_mu);
  auto r = store->run(id);
  if (!r) throw RunNotFound(id);
  return *r;
}

bool RunRegistry::owned_elsewhere(const StoredRun& r) const {
  return (r.summary.state == RunState::running || r.summary.state == RunState::paused) && r.owner_pid != pid &&
         ProcessLease::held(data_dir, r.owner_pid);
}

RunState RunRegistry::resting_state(const StoredRun& r) const {
  if (r.summary.state == RunState::running && !owned_elsewhere(r)) return RunState::stopped;
  return r.summary.state;
}

bool RunRegistry::live(Active& a) {
  std::lock_guard lk(a.m);
  return !a.ending && !a.session_done;
}

std::vector<Member> RunRegistry::pool_of(const std::string& id) const {
  if (auto a = find_active(id))
    if (live(*a)) return a->run->snapshot().pool;
  stored(id);  // throws RunNotFound
  std::lock_guard lk(store_mu);
  return store->pool(id);
}

RunSummary RunRegistry::summary(const StoredRun& r) const {
  RunSummary s = own_summary(r);
  s.best = best_of(std::move(s.best), islands_best(s.islands));
  return s;
}

RunSummary RunRegistry::own_summary(const StoredRun& r) const {
  RunSummary s = r.summary;
  s.state = resting_state(r);
  if (auto a = find_active(s.id)) {
    bool running_here, done;
    {
      std::lock_guard lk(a->m);
      running_here = !a->ending && !a->session_done;
      done = a->session_done;
      if (!done) s.state = a->state;
    }
    if (running_here) {
      s.counters = a->run->counters();
      s.current_samples = a->run->current_samples();
      if (auto b = a->run->best()) s.best = scored_function(*b);
    }
  }
  return s;
}

}  // namespace mixforge::evolver
