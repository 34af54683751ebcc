#include "evolver/run_manager.hpp"

#include <nlohmann/json.hpp>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <map>
#include <mutex>
#include <random>
#include <sstream>
#include <thread>

#include "avalanche/evaluator.hpp"
#include "evolver/run.hpp"
#include "evolver/store.hpp"
#include "mixer/text_form.hpp"

namespace mixforge::evolver {
namespace {

using Clock = std::chrono::steady_clock;

double unix_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string new_run_id() {
  std::random_device rd;
  const std::uint64_t r = (std::uint64_t{rd()} << 32) ^ rd() ^
                          static_cast<std::uint64_t>(Clock::now().time_since_epoch().count());
  char buf[16];
  std::snprintf(buf, sizeof buf, "r%011" PRIx64, static_cast<std::uint64_t>(r & 0xfffffffffffull));
  return buf;
}

bool process_alive(int pid) { return pid > 0 && (::kill(pid, 0) == 0 || errno == EPERM); }

// The run's best few: exact hall-of-fame entries and exact pool members first (by chi2),
// then the rest of the pool by rank.
std::vector<ScoredFunction> rank_leaders(const std::vector<Member>& pool,
                                         const std::vector<HallOfFameEntry>& hof, std::size_t count) {
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
    return a->estimate.rank() != b->estimate.rank() ? a->estimate.rank() < b->estimate.rank()
                                                    : a->hash < b->hash;
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

struct RunManager::Impl {
  struct Active {
    std::unique_ptr<Run> run;
    std::thread session;
    std::mutex m;
    std::mutex join_mu;  // several threads may finish() the same run
    std::condition_variable cv;
    bool wake = false;           // new hall-of-fame entries, or a stop
    bool stop_requested = false;
    bool session_done = false;
    RunState state = RunState::running;
    Progress progress;
  };

  Options options;
  std::unique_ptr<Evaluator> owned_evaluator;
  const Evaluator* evaluator = nullptr;
  Evaluator interpreter{nullptr};  // small scoring tasks: cheaper than compiling a kernel

  mutable std::mutex store_mu;
  std::unique_ptr<Store> store;

  mutable std::mutex mu;  // active
  std::condition_variable done_cv;
  std::map<std::string, std::shared_ptr<Active>> active;

  std::recursive_mutex sub_mu;
  std::uint64_t next_subscription = 1;
  std::map<std::uint64_t, std::pair<std::string, EventCallback>> subscribers;

  void emit(const RunEvent& e) {
    std::lock_guard lk(sub_mu);
    // Copy: a callback may unsubscribe (itself or others) while we iterate.
    auto subs = subscribers;
    for (auto& [id, s] : subs) {
      if (!subscribers.count(id)) continue;
      if (s.first.empty() || s.first == e.run_id) {
        try {
          s.second(e);
        } catch (...) {
          // A subscriber's failure must not stop the run.
        }
      }
    }
  }

  std::shared_ptr<Active> find_active(const std::string& id) const {
    std::lock_guard lk(mu);
    auto it = active.find(id);
    return it == active.end() ? nullptr : it->second;
  }

  StoredRun stored(const std::string& id) const {
    std::lock_guard lk(store_mu);
    auto r = store->run(id);
    if (!r) throw RunNotFound(id);
    return *r;
  }

  Progress make_progress(const std::string& id, Active& a, RunCounters& prev, Clock::time_point& prev_t) {
    Progress p;
    p.run_id = id;
    p.state = a.run->paused() ? RunState::paused : RunState::running;
    p.counters = a.run->counters();
    const auto now = Clock::now();
    const double dt = std::chrono::duration<double>(now - prev_t).count();
    if (dt > 0) {
      p.tournaments_per_s = double(p.counters.tournaments - prev.tournaments) / dt;
      p.scored_per_s = double(p.counters.scored - prev.scored) / dt;
    }
    prev = p.counters;
    prev_t = now;
    p.early_reject_rate = p.counters.scored ? double(p.counters.early_rejects) / double(p.counters.scored) : 0;
    p.current_samples = a.run->current_samples();
    p.pool_size = a.run->pool_size();
    if (auto b = a.run->best()) p.best = scored_function(*b);
    p.checkpoint_pause_max_s = a.run->max_snapshot_pause();
    return p;
  }

  void write_checkpoint(const std::string& id, Active& a, RunState state, const std::string& error = {}) {
    const Checkpoint c = a.run->snapshot();
    const std::vector<HistoryPoint> h = a.run->drain_history();
    std::lock_guard lk(store_mu);
    store->checkpoint(id, state, c, h, static_cast<int>(::getpid()), error);
  }

  void flush_hall_of_fame(const std::string& id, Active& a) {
    const std::vector<HallOfFameEntry> hof = a.run->drain_hall_of_fame();
    if (hof.empty()) return;
    {
      std::lock_guard lk(store_mu);
      store->add_hall_of_fame(hof);
    }
    for (const auto& e : hof) {
      RunEvent ev;
      ev.type = RunEvent::Type::new_best;
      ev.run_id = id;
      ev.best = e.function;
      {
        std::lock_guard lk(a.m);
        ev.progress = a.progress;
      }
      ev.progress.best = e.function;
      emit(ev);
    }
  }

  // One thread per active run: hall-of-fame entries at once, progress every second,
  // checkpoints every few seconds and at the end. The search never waits on the disk:
  // it only pays for the snapshot copy under its lock.
  void session(const std::string id, std::shared_ptr<Active> a) {
    RunCounters prev = a->run->counters();
    Clock::time_point prev_t = Clock::now();
    auto next_progress = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                            std::chrono::duration<double>(options.progress_interval_s));
    auto next_checkpoint = Clock::now();  // a first checkpoint at once marks it running
    const auto progress_every = std::chrono::duration_cast<Clock::duration>(
        std::chrono::duration<double>(options.progress_interval_s));
    const auto checkpoint_every = std::chrono::duration_cast<Clock::duration>(
        std::chrono::duration<double>(options.checkpoint_interval_s));
    std::string error;
    try {
      for (;;) {
        const bool done = a->run->wait(0.0);
        flush_hall_of_fame(id, *a);
        if (done) break;
        const auto now = Clock::now();
        if (now >= next_progress) {
          Progress p = make_progress(id, *a, prev, prev_t);
          {
            std::lock_guard lk(a->m);
            a->progress = p;
          }
          RunEvent ev;
          ev.type = RunEvent::Type::progress;
          ev.run_id = id;
          ev.progress = p;
          emit(ev);
          next_progress = now + progress_every;
        }
        if (now >= next_checkpoint) {
          write_checkpoint(id, *a, a->run->paused() ? RunState::paused : RunState::running);
          next_checkpoint = now + checkpoint_every;
        }
        std::unique_lock lk(a->m);
        a->cv.wait_until(lk, std::min(next_progress, next_checkpoint), [&] { return a->wake; });
        a->wake = false;
      }
    } catch (const std::exception& e) {
      error = std::string("checkpoint failed: ") + e.what();
      a->run->request_stop();
      a->run->wait();
    }
    // Final state and checkpoint.
    if (error.empty()) error = a->run->error();
    RunState final_state = !error.empty()            ? RunState::failed
                           : a->run->budget_spent() ? RunState::finished
                                                    : RunState::stopped;
    try {
      flush_hall_of_fame(id, *a);
      write_checkpoint(id, *a, final_state, error);
    } catch (const std::exception& e) {
      final_state = RunState::failed;
      try {
        std::lock_guard lk(store_mu);
        store->set_state(id, RunState::failed, 0, std::string("final checkpoint failed: ") + e.what());
      } catch (...) {
      }
    }
    Progress p = make_progress(id, *a, prev, prev_t);
    p.state = final_state;
    {
      std::lock_guard lk(a->m);
      a->progress = p;
      a->state = final_state;
      a->session_done = true;
    }
    RunEvent ev;
    ev.type = RunEvent::Type::state;
    ev.run_id = id;
    ev.progress = p;
    ev.state = final_state;
    emit(ev);
    {
      std::lock_guard lk(mu);
      done_cv.notify_all();
    }
  }

  void launch(const std::string& id, const RunConfig& config, std::optional<Checkpoint> from,
              const Budget& budget) {
    auto a = std::make_shared<Active>();
    a->run = std::make_unique<Run>(id, config, *evaluator, std::move(from),
                                   evaluator->uses_jit() ? &interpreter : nullptr);
    Active* raw = a.get();
    {
      std::lock_guard lk(store_mu);
      store->set_state(id, RunState::running, static_cast<int>(::getpid()));
    }
    a->progress.run_id = id;
    a->progress.state = RunState::running;
    {
      std::lock_guard lk(mu);
      active[id] = a;
    }
    a->run->start(budget, [raw](const HallOfFameEntry&) {
      std::lock_guard lk(raw->m);
      raw->wake = true;
      raw->cv.notify_all();
    });
    a->session = std::thread([this, id, a] { session(id, a); });
    RunEvent ev;
    ev.type = RunEvent::Type::state;
    ev.run_id = id;
    ev.progress = a->progress;
    ev.state = RunState::running;
    emit(ev);
  }

  // Ends an active run's session (after its final checkpoint) and forgets it.
  void finish(const std::string& id) {
    std::shared_ptr<Active> a = find_active(id);
    if (!a) return;
    a->run->request_stop();
    {
      std::lock_guard lk(a->m);
      a->wake = true;
      a->cv.notify_all();
    }
    {
      std::lock_guard j(a->join_mu);
      if (a->session.joinable() && a->session.get_id() != std::this_thread::get_id()) a->session.join();
    }
    std::lock_guard lk(mu);
    active.erase(id);
  }

  // Forget sessions that ended on their own (budget spent, failure).
  void reap() {
    std::vector<std::string> ended;
    {
      std::lock_guard lk(mu);
      for (auto& [id, a] : active) {
        std::lock_guard g(a->m);
        if (a->session_done) ended.push_back(id);
      }
    }
    for (const auto& id : ended) finish(id);
  }

  std::vector<Member> pool_of(const std::string& id) const {
    if (auto a = find_active(id)) return a->run->snapshot().pool;
    stored(id);  // throws RunNotFound
    std::lock_guard lk(store_mu);
    return store->pool(id);
  }

  RunSummary summary(const StoredRun& r) const {
    RunSummary s = r.summary;
    if (auto a = find_active(s.id)) {
      std::lock_guard lk(a->m);
      if (!a->session_done) {
        s.state = a->run->paused() ? RunState::paused : RunState::running;
        s.counters = a->run->counters();
        s.current_samples = a->run->current_samples();
        if (auto b = a->run->best()) s.best = scored_function(*b);
      }
    } else if ((s.state == RunState::running || s.state == RunState::paused) &&
               !(r.owner_pid != static_cast<int>(::getpid()) && process_alive(r.owner_pid))) {
      // Its process died (or this one forgot it): it is resumable from its last checkpoint.
      s.state = RunState::stopped;
    }
    return s;
  }
};

RunManager::RunManager(Options options) : impl_(std::make_unique<Impl>()) {
  impl_->options = std::move(options);
  if (impl_->options.engine || impl_->options.interpreter_only) {
    impl_->owned_evaluator = std::make_unique<Evaluator>(impl_->options.engine);
  } else {
    impl_->owned_evaluator = Evaluator::with_own_engine();
  }
  impl_->evaluator = impl_->owned_evaluator.get();
  impl_->store = std::make_unique<Store>(impl_->options.data_dir);
}

RunManager::~RunManager() {
  std::vector<std::string> ids;
  {
    std::lock_guard lk(impl_->mu);
    for (auto& [id, a] : impl_->active) ids.push_back(id);
  }
  for (const auto& id : ids) {
    try {
      impl_->finish(id);
    } catch (...) {
    }
  }
}

const std::filesystem::path& RunManager::data_dir() const { return impl_->options.data_dir; }

std::string RunManager::create(const RunConfig& config, bool start) {
  // Round trip through JSON: the same validation as a config file, and what is stored.
  const RunConfig checked = run_config_from_json(to_json(config));
  const std::string id = new_run_id();
  {
    std::lock_guard lk(impl_->store_mu);
    impl_->store->create_run(id, checked, unix_now());
  }
  if (start) impl_->launch(id, checked, std::nullopt, checked.budget);
  return id;
}

void RunManager::resume(const std::string& id, std::optional<Budget> extra) {
  impl_->reap();
  if (auto a = impl_->find_active(id)) {
    if (a->run->paused()) {
      a->run->unpause();
      std::lock_guard lk(impl_->store_mu);
      impl_->store->set_state(id, RunState::running, static_cast<int>(::getpid()));
      return;
    }
    throw RunStateError("run " + id + " is already running");
  }
  const StoredRun r = impl_->stored(id);
  if ((r.summary.state == RunState::running || r.summary.state == RunState::paused) &&
      r.owner_pid != static_cast<int>(::getpid()) && process_alive(r.owner_pid))
    throw RunStateError("run " + id + " is active in process " + std::to_string(r.owner_pid));
  std::optional<Checkpoint> c;
  std::vector<HallOfFameEntry> hof;
  {
    std::lock_guard lk(impl_->store_mu);
    c = impl_->store->load_checkpoint(id);
    hof = impl_->store->hall_of_fame(id, 1);
  }
  // Hall-of-fame entries are written at once, checkpoints every few seconds: after a
  // kill the hall of fame may know a better best than the checkpoint.
  if (c && !hof.empty() && hof.front().function.exact &&
      (!c->best || hof.front().function.chi2 < c->best->estimate.chi2)) {
    const ScoredFunction& f = hof.front().function;
    c->best = Member{f.program, f.program.hash(), {f.chi2, f.chi2_stderr, f.samples, f.exact}, f.born};
  }
  if (c && c->rngs.empty() && c->pool.empty()) c.reset();  // never checkpointed: start fresh
  impl_->launch(id, r.summary.config, std::move(c), extra ? *extra : r.summary.config.budget);
}

void RunManager::pause(const std::string& id) {
  auto a = impl_->find_active(id);
  if (!a) {
    impl_->stored(id);
    throw RunStateError("run " + id + " is not running");
  }
  a->run->pause();
  std::lock_guard lk(impl_->store_mu);
  impl_->store->set_state(id, RunState::paused, static_cast<int>(::getpid()));
}

void RunManager::stop(const std::string& id) {
  if (!impl_->find_active(id)) {
    impl_->stored(id);  // throws RunNotFound for unknown ids; stopping a stopped run is fine
    return;
  }
  impl_->finish(id);
}

void RunManager::remove(const std::string& id) {
  impl_->stored(id);
  impl_->finish(id);
  std::lock_guard lk(impl_->store_mu);
  impl_->store->remove_run(id);
}

bool RunManager::wait(const std::string& id, std::optional<double> timeout_s) {
  auto a = impl_->find_active(id);
  if (!a) {
    impl_->stored(id);
    return true;
  }
  const bool ended = a->run->wait(timeout_s);
  if (!ended) return false;
  // The session writes the final checkpoint after the workers end.
  std::unique_lock lk(impl_->mu);
  auto pred = [&] {
    std::lock_guard g(a->m);
    return a->session_done;
  };
  if (timeout_s)
    impl_->done_cv.wait_for(lk, std::chrono::duration<double>(*timeout_s), pred);
  else
    impl_->done_cv.wait(lk, pred);
  lk.unlock();
  if (!pred()) return false;
  impl_->finish(id);
  return true;
}

std::vector<RunSummary> RunManager::list() const {
  std::vector<StoredRun> runs;
  {
    std::lock_guard lk(impl_->store_mu);
    runs = impl_->store->runs();
  }
  std::vector<RunSummary> out;
  for (const auto& r : runs) out.push_back(impl_->summary(r));
  return out;
}

RunSummary RunManager::get(const std::string& id) const { return impl_->summary(impl_->stored(id)); }

bool RunManager::active(const std::string& id) const {
  auto a = impl_->find_active(id);
  if (!a) return false;
  std::lock_guard lk(a->m);
  return !a->session_done;
}

Progress RunManager::progress(const std::string& id) const {
  if (auto a = impl_->find_active(id)) {
    std::lock_guard lk(a->m);
    return a->progress;
  }
  const RunSummary s = get(id);
  Progress p;
  p.run_id = id;
  p.state = s.state;
  p.counters = s.counters;
  p.early_reject_rate = s.counters.scored ? double(s.counters.early_rejects) / double(s.counters.scored) : 0;
  p.current_samples = s.current_samples;
  p.best = s.best;
  std::lock_guard lk(impl_->store_mu);
  p.pool_size = impl_->store->pool(id).size();
  return p;
}

PoolPage RunManager::pool(const std::string& id, const PoolQuery& q) const {
  std::vector<Member> members = impl_->pool_of(id);
  std::vector<const Member*> sel;
  for (const Member& m : members) {
    if (q.steps && static_cast<int>(m.program.size()) != *q.steps) continue;
    if (q.uses_kind && std::none_of(m.program.steps().begin(), m.program.steps().end(),
                                    [&](const Step& s) { return s.kind == *q.uses_kind; }))
      continue;
    if (q.max_chi2 && !(m.estimate.chi2 <= *q.max_chi2)) continue;
    if (q.exact_only && !m.estimate.exact) continue;
    sel.push_back(&m);
  }
  auto key = [&](const Member* m) -> double {
    switch (q.order) {
      case PoolQuery::Order::chi2: return m->estimate.rank();
      case PoolQuery::Order::born: return static_cast<double>(m->born);
      case PoolQuery::Order::steps: return static_cast<double>(m->program.size());
    }
    return 0;
  };
  std::stable_sort(sel.begin(), sel.end(), [&](const Member* a, const Member* b) {
    const double ka = key(a), kb = key(b);
    if (ka != kb) return q.descending ? ka > kb : ka < kb;
    return a->hash < b->hash;
  });
  PoolPage page;
  page.total = sel.size();
  for (std::size_t i = q.offset; i < sel.size() && page.items.size() < q.limit; ++i)
    page.items.push_back(scored_function(*sel[i]));
  return page;
}

std::optional<ScoredFunction> RunManager::best(const std::string& id) const { return get(id).best; }

std::vector<ScoredFunction> RunManager::leaders(const std::string& id, std::size_t count) const {
  std::vector<Member> members = impl_->pool_of(id);
  std::vector<HallOfFameEntry> hof;
  {
    std::lock_guard lk(impl_->store_mu);
    hof = impl_->store->hall_of_fame(id, count * 4 + 16);
  }
  if (auto a = impl_->find_active(id))
    if (auto b = a->run->best()) hof.insert(hof.begin(), HallOfFameEntry{scored_function(*b), id, 0, 0, 0});
  return rank_leaders(members, hof, count);
}

std::vector<HistoryPoint> RunManager::history(const std::string& id, std::size_t max_points) const {
  impl_->stored(id);
  std::vector<HistoryPoint> h;
  {
    std::lock_guard lk(impl_->store_mu);
    h = impl_->store->history(id);
  }
  if (max_points == 0 || h.size() <= max_points || max_points < 2) return h;
  std::vector<HistoryPoint> thin;
  for (std::size_t i = 0; i < max_points; ++i)
    thin.push_back(h[i * (h.size() - 1) / (max_points - 1)]);
  return thin;
}

std::vector<HallOfFameEntry> RunManager::hall_of_fame(const std::string& run_id, std::size_t limit) const {
  if (!run_id.empty()) impl_->stored(run_id);
  std::lock_guard lk(impl_->store_mu);
  return impl_->store->hall_of_fame(run_id, limit);
}

std::optional<ScoredFunction> RunManager::function(const std::string& function_id) const {
  std::vector<std::shared_ptr<Impl::Active>> actives;
  {
    std::lock_guard lk(impl_->mu);
    for (auto& [id, a] : impl_->active) actives.push_back(a);
  }
  for (auto& a : actives)
    for (const Member& m : a->run->snapshot().pool)
      if (m.program.id() == function_id) return scored_function(m);
  std::lock_guard lk(impl_->store_mu);
  return impl_->store->function(function_id);
}

std::string RunManager::dump(const std::string& id) const {
  const RunSummary s = get(id);
  std::vector<Member> members = impl_->pool_of(id);
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
    out << '\t' << m.program.id() << '\t' << format_short(m.program) << '\n';
  }
  return out.str();
}

std::uint64_t RunManager::subscribe(const std::string& run_id, EventCallback callback) {
  std::lock_guard lk(impl_->sub_mu);
  const std::uint64_t id = impl_->next_subscription++;
  impl_->subscribers[id] = {run_id, std::move(callback)};
  return id;
}

void RunManager::unsubscribe(std::uint64_t subscription) {
  std::lock_guard lk(impl_->sub_mu);
  impl_->subscribers.erase(subscription);
}

}  // namespace mixforge::evolver
