#include "evolver/manager/run_queries.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "evolver/manager/run_registry.hpp"
#include "mixer/text_form.hpp"

namespace mixforge::evolver {
namespace {

// The run's best few: exact hall-of-fame entries and exact pool members first (by chi2),
// then the rest of the pool by rank.
std::vector<ScoredFunction> rank_leaders(const std::vector<Member>& pool, const std::vector<HallOfFameEntry>& hof,
                                         std::size_t count) {
  std::vector<ScoredFunction> exact, rest;
  std::vector<std::string> seen;
  auto add = [&](const ScoredFunction& f) {
    if (std::find(seen.begin(), seen.end(), f.id) != seen.end()) return;
    seen.push_back(f.id);
    (f.exact ? exact : rest).push_back(f);
  };
  for (const auto& e : hof) add(e.function);
  std::vector<const Member*> sorted;
  for (const Member& m : pool) sorted.push_back(&m);
  std::sort(sorted.begin(), sorted.end(), [](const Member* a, const Member* b) {
    return a->estimate.rank() != b->estimate.rank() ? a->estimate.rank() < b->estimate.rank() : a->hash < b->hash;
  });
  for (const Member* m : sorted) {
    if (exact.size() + rest.size() >= count * 4 + 16) break;
    add(scored_function(*m));
  }
  auto by_chi2 = [](const ScoredFunction& a, const ScoredFunction& b) { return a.chi2 < b.chi2; };
  std::stable_sort(exact.begin(), exact.end(), by_chi2);
  exact.insert(exact.end(), rest.begin(), rest.end());
  if (exact.size() > count) exact.resize(count);
  return exact;
}

}  // namespace

std::vector<RunSummary> RunQueries::list() const {
  std::vector<StoredRun> runs;
  {
    std::lock_guard lk(runs_.store_mu);
    runs = runs_.store->runs();
  }
  std::vector<RunSummary> out;
  for (const auto& r : runs) out.push_back(runs_.summary(r));
  return out;
}

RunSummary RunQueries::get(const std::string& id) const { return runs_.summary(runs_.stored(id)); }

bool RunQueries::active(const std::string& id) const {
  auto a = runs_.find_active(id);
  if (!a) return false;
  std::lock_guard lk(a->m);
  return !a->session_done;
}

std::optional<ScoredFunction> RunQueries::own_best(const std::string& id) const {
  return runs_.own_summary(runs_.stored(id)).best;
}

std::map<int, Checkpoint> RunQueries::island_checkpoints(const std::string& id) const {
  std::lock_guard lk(runs_.store_mu);
  return runs_.store->island_checkpoints(id);
}

Progress RunQueries::progress(const std::string& id) const {
  if (auto a = runs_.find_active(id)) {
    std::lock_guard lk(a->m);
    if (!a->session_done) {
      Progress p = a->progress;
      p.state = a->state;
      return p;
    }
  }
  const RunSummary s = get(id);
  Progress p;
  p.run_id = id;
  p.state = s.state;
  p.counters = s.counters;
  p.early_reject_rate = s.counters.scored ? double(s.counters.early_rejects) / double(s.counters.scored) : 0;
  p.current_samples = s.current_samples;
  p.best = s.best;
  std::lock_guard lk(runs_.store_mu);
  p.pool_size = runs_.store->pool_count(id);
  if (!s.config.seed_programs.empty()) p.climbs = runs_.store->climbs(id);  // where they ended
  return p;
}

PoolPage RunQueries::pool(const std::string& id, const PoolQuery& q) const {
  const auto a = runs_.find_active(id);
  if (!a || !RunRegistry::live(*a)) {
    runs_.stored(id);  // throws RunNotFound
    std::lock_guard lk(runs_.store_mu);
    return runs_.store->pool_page(id, q);
  }
  std::vector<Member> members = runs_.pool_of(id);
  std::vector<const Member*> sel;
  for (const Member& m : members)
    if (q.matches(m)) sel.push_back(&m);
  std::sort(sel.begin(), sel.end(), [&](const Member* a, const Member* b) { return q.before(*a, *b); });
  PoolPage page;
  page.total = sel.size();
  for (std::size_t i = q.offset; i < sel.size() && page.items.size() < q.limit; ++i)
    page.items.push_back(scored_function(*sel[i]));
  return page;
}

std::optional<ScoredFunction> RunQueries::best(const std::string& id) const { return get(id).best; }

std::vector<ScoredFunction> RunQueries::leaders(const std::string& id, std::size_t count) const {
  std::vector<Member> members = runs_.pool_of(id);
  std::vector<HallOfFameEntry> hof;
  {
    std::lock_guard lk(runs_.store_mu);
    hof = runs_.store->hall_of_fame(id, count * 4 + 16);
  }
  if (auto a = runs_.find_active(id))
    if (auto b = a->run->best()) hof.insert(hof.begin(), HallOfFameEntry{scored_function(*b), id, 0, 0, 0});
  return rank_leaders(members, hof, count);
}

std::vector<HistoryPoint> RunQueries::history(const std::string& id, std::size_t max_points) const {
  runs_.stored(id);
  std::vector<HistoryPoint> h;
  {
    std::lock_guard lk(runs_.store_mu);
    h = runs_.store->history(id);
  }
  if (max_points == 0 || h.size() <= max_points || max_points < 2) return h;
  std::vector<HistoryPoint> thin;
  for (std::size_t i = 0; i < max_points; ++i) thin.push_back(h[i * (h.size() - 1) / (max_points - 1)]);
  return thin;
}

HallOfFamePage RunQueries::hall_of_fame(const HallOfFameQuery& q) const {
  HallOfFamePage page;
  {
    std::lock_guard lk(runs_.store_mu);
    page = runs_.store->hall_of_fame(q);
  }
  // RunNotFound only for an id that is neither a run nor in the hall of fame: a deleted
  // run's entries stay, and its id still selects them.
  if (!q.run_id.empty() && page.items.empty()) runs_.stored(q.run_id);
  return page;
}

std::vector<HallOfFameEntry> RunQueries::hall_of_fame(const std::string& run_id, std::size_t limit) const {
  if (!run_id.empty()) runs_.stored(run_id);
  std::lock_guard lk(runs_.store_mu);
  return runs_.store->hall_of_fame(run_id, limit);
}

std::optional<ScoredFunction> RunQueries::function(const std::string& function_id) const {
  std::vector<std::shared_ptr<RunRegistry::Active>> actives;
  {
    std::lock_guard lk(runs_.mu);
    for (auto& [id, a] : runs_.active) actives.push_back(a);
  }
  std::optional<ScoredFunction> live;
  for (auto& a : actives) {
    for (const Member& m : a->run->snapshot().pool)
      if (m.program.id() == function_id) {
        live = scored_function(m);
        break;
      }
    if (live) break;
  }
  if (live && (live->exact || live->chi2_exact)) return live;
  // A live pool member may be less precise than a stored record of it: after a kill the
  // resumed pool is the last checkpoint's, while the hall of fame already holds the exact
  // score. The most precise record wins: exact first, then more samples.
  std::optional<ScoredFunction> stored;
  {
    std::lock_guard lk(runs_.store_mu);
    stored = runs_.store->function(function_id);
  }
  if (!live || !stored) return live ? live : stored;
  auto precision = [](const ScoredFunction& f) { return std::pair(f.exact || f.chi2_exact.has_value(), f.samples); };
  return precision(*stored) > precision(*live) ? stored : live;
}

std::optional<StoredQualityReport> RunQueries::quality_report(const std::string& function_id,
                                                              const std::string& options) const {
  std::lock_guard g(runs_.store_mu);
  return runs_.store->quality_report(function_id, options);
}

std::optional<Note> RunQueries::note(NoteSubject subject, const std::string& id) const {
  std::optional<Note> stored;
  {
    std::lock_guard g(runs_.store_mu);
    stored = runs_.store->note(subject, id);
  }
  if (stored) return stored;
  if (subject == NoteSubject::run)
    runs_.stored(id);  // RunNotFound
  else if (!function(id))
    return std::nullopt;
  return Note{subject, id, {}, 0, std::nullopt};
}

std::string RunQueries::dump(const std::string& id) const {
  const RunSummary s = get(id);
  std::vector<Member> members = runs_.pool_of(id);
  std::sort(members.begin(), members.end(), [](const Member& a, const Member& b) {
    return a.estimate.rank() != b.estimate.rank() ? a.estimate.rank() < b.estimate.rank() : a.hash < b.hash;
  });
  std::ostringstream out;
  char buf[64];
  out << "# mixforge run " << id << ": width " << s.config.width << ", " << members.size()
      << " functions, best first; tournaments " << s.counters.tournaments << "\n";
  out << "# chi2\tscore\tid\tsteps\n";
  for (const Member& m : members) {
    std::snprintf(buf, sizeof buf, "%.10g", m.estimate.chi2);
    out << buf << '\t';
    if (m.estimate.exact)
      out << "exact";
    else
      out << "N=" << m.estimate.samples;
    out << '\t' << m.program.id() << '\t' << mixer::format_short(m.program) << '\n';
  }
  return out.str();
}

}  // namespace mixforge::evolver
