#include "evolver/manager/run_manager.hpp"

#include <nlohmann/json.hpp>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <condition_variable>
#include <map>
#include <mutex>
#include <random>
#include <thread>
#include <utility>

#include "avalanche/evaluator.hpp"
#include "evolver/manager/process_lease.hpp"
#include "evolver/manager/run_queries.hpp"
#include "evolver/manager/run_registry.hpp"
#include "evolver/run/run.hpp"
#include "evolver/run/run_state_machine.hpp"
#include "evolver/store/store.hpp"

namespace mixforge::evolver {
namespace {

using Clock = std::chrono::steady_clock;

// The one rule for the budget of a resumed session (HTTP resume, `mixforge runs resume`, a
// daemon's start): a budget given with the resume, counted from it; else, for a run whose
// session was cut short by its process ending (marked to resume: a shutdown or a crash) or
// that was paused, what is left of that session's budget; else the run's own, counted from
// the resume. Without the second a restart lost a resume's budget (a run with none of its
// own then ran until stopped).
Budget resumed_budget(const StoredRun& r, RunState resting, const std::optional<Checkpoint>& c,
                      const std::optional<Budget>& given) {
  if (given) return *given;
  if (c && c->session && (r.resume_on_start || resting == RunState::paused)) return c->session->remaining(c->counters);
  return r.summary.config.budget;
}

}  // namespace

// Locks, in the order they may be taken (never the reverse):
//   control (one per run: serialises resume/pause/stop/remove of that run; held while a
//            stop waits for the final checkpoint, never by the session thread)
//   -> Active::persist (orders a state change with its store write: the store never
//            records states in another order than they happened)
//   -> Active::m, mu (the active map), store_mu, sub_mu (event delivery), Run's own lock.
// Active::m, mu and store_mu guard data only: nothing is called while they are held.
// The store and the active runs are the RunRegistry's (run_registry.hpp), which the read
// queries (RunQueries) share; the lifecycle below is the manager's alone.
struct RunManager::Impl : RunRegistry {
  explicit Impl(Options o) : RunRegistry(o.data_dir), options(std::move(o)) {}
  // The runs go before the evaluator they score with (the registry, a base, would go last).
  ~Impl() { active.clear(); }

  Options options;
  std::unique_ptr<avalanche::Evaluator> owned_evaluator;
  const avalanche::Evaluator* evaluator = nullptr;
  avalanche::Evaluator interpreter{nullptr};  // small scoring tasks: cheaper than compiling a kernel
  RunQueries queries{*this};

  std::condition_variable done_cv;  // an active run's session is done

  std::mutex control_mu;  // controls
  std::map<std::string, std::shared_ptr<std::mutex>> controls;

  std::recursive_mutex sub_mu;
  std::uint64_t next_subscription = 1;
  std::map<std::uint64_t, std::pair<std::string, EventCallback>> subscribers;

  std::unique_ptr<ProcessLease> lease;  // taken with the store: this process owns what it runs

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

  void emit_state(const std::string& id, RunState state, Progress p) {
    RunEvent ev;
    ev.type = RunEvent::Type::state;
    ev.run_id = id;
    p.state = state;
    ev.progress = std::move(p);
    ev.state = state;
    emit(ev);
  }

  std::shared_ptr<std::mutex> control(const std::string& id) {
    std::lock_guard lk(control_mu);
    auto& c = controls[id];
    if (!c) c = std::make_shared<std::mutex>();
    return c;
  }

  void refuse_if_owned_elsewhere(const StoredRun& r) const {
    if (owned_elsewhere(r))
      throw RunStateError("run " + r.summary.id + " is active in process " + std::to_string(r.owner_pid));
  }

  Progress make_progress(const std::string& id, Active& a, RunCounters& prev, Clock::time_point& prev_t) {
    Progress p;
    p.run_id = id;
    {
      std::lock_guard lk(a.m);
      p.state = a.state;
    }
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
    {
      std::lock_guard lk(a.m);
      p.best = best_of(std::move(p.best), a.elsewhere);  // an island run's other islands
    }
    p.checkpoint_pause_max_s = a.run->max_snapshot_pause();
    p.climbs = a.run->climbs();
    return p;
  }

  Progress latest_progress(Active& a) {
    std::lock_guard lk(a.m);
    Progress p = a.progress;
    p.state = a.state;
    return p;
  }

  void write_checkpoint(const std::string& id, Active& a, RunState state, const std::string& error = {},
                        std::optional<bool> resume_on_start = std::nullopt) {
    const Checkpoint c = a.run->snapshot();
    std::vector<HistoryPoint> h = a.run->drain_history();
    merge_elsewhere(a, h);
    std::lock_guard lk(store_mu);
    store->checkpoint(id, state, c, h, pid, error, resume_on_start);
  }

  // An island run's history: the points of bests its other islands reported go in among the
  // run's own (by the run's tournaments), and no later point of its own says worse than such
  // a best. Not with an objective: the history's chi2 is then not what ranks the bests.
  static void merge_elsewhere(Active& a, std::vector<HistoryPoint>& h) {
    std::lock_guard lk(a.m);
    if (a.elsewhere_steps.empty()) return;
    for (std::size_t i = a.elsewhere_stored; i < a.elsewhere_steps.size(); ++i)
      if (a.elsewhere_steps[i].news) h.push_back(a.elsewhere_steps[i].point);
    a.elsewhere_stored = a.elsewhere_steps.size();
    std::stable_sort(h.begin(), h.end(), [](const HistoryPoint& x, const HistoryPoint& y) {
      return std::pair(x.tournaments, x.elapsed_s) < std::pair(y.tournaments, y.elapsed_s);
    });
    if (a.run->config().objective.enabled()) return;
    for (HistoryPoint& p : h) {
      const HistoryPoint* floor = nullptr;  // the best reported by then (the steps improve)
      for (const Active::Elsewhere& e : a.elsewhere_steps)
        if (e.point.tournaments <= p.tournaments) floor = &e.point;
      if (floor && better(*floor, p)) {
        p.best_chi2 = floor->best_chi2;
        p.best_exact = floor->best_exact;
      }
    }
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
      ev.progress = latest_progress(a);
      ev.progress.best = e.function;
      emit(ev);
    }
  }

  // The final state the session claims when its workers have ended.
  static RunState final_state(Active& a, const std::string& error, bool budget_spent) {
    if (a.stop_requested && a.suspend && a.state == RunState::paused) return RunState::paused;
    // A shutdown while the run only finishes its last exact score (the workers stopped on
    // the budget) ends it: a suspended run would be continued by the next start, with its
    // own budget counted afresh (or none: forever).
    if (a.stop_requested && !(a.suspend && budget_spent)) return RunState::stopped;
    if (!error.empty()) return RunState::failed;
    return budget_spent ? RunState::finished : RunState::stopped;
  }

  // One thread per active run: hall-of-fame entries at once, progress every second,
  // checkpoints every few seconds and at the end. The search never waits on the disk:
  // it only pays for the snapshot copy under its lock.
  void session(const std::string id, std::shared_ptr<Active> a) {
    RunCounters prev = a->run->counters();
    Clock::time_point prev_t = Clock::now();
    const auto progress_every = std::chrono::duration_cast<Clock::duration>(
        std::chrono::duration<double>(options.progress_interval_s));
    const auto checkpoint_every = std::chrono::duration_cast<Clock::duration>(
        std::chrono::duration<double>(options.checkpoint_interval_s));
    auto next_progress = Clock::now() + progress_every;
    auto next_checkpoint = Clock::now();  // a first checkpoint at once
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
          std::lock_guard p(a->persist);
          RunState st;
          {
            std::lock_guard lk(a->m);
            st = a->state;
          }
          write_checkpoint(id, *a, st);
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
    if (error.empty()) error = a->run->error();
    try {
      flush_hall_of_fame(id, *a);  // the workers have ended: these are the last entries
    } catch (const std::exception& e) {
      if (error.empty()) error = std::string("hall of fame: ") + e.what();
    }
    RunState from, to;
    bool suspend;
    const bool budget_spent = a->run->budget_spent();
    {
      std::lock_guard p(a->persist);
      {
        std::lock_guard lk(a->m);
        from = a->state;
        to = final_state(*a, error, budget_spent);
        a->state = to;
        a->ending = true;
        suspend = a->suspend;
      }
      try {
        // A shutdown keeps the intent to continue a run that has not ended on its budget;
        // every other end clears it.
        write_checkpoint(id, *a, to, to == RunState::failed ? error : std::string(),
                         suspend && to != RunState::finished ? std::nullopt : std::optional<bool>(false));
      } catch (const std::exception& e) {
        to = RunState::failed;
        try {
          std::lock_guard lk(store_mu);
          store->set_state(id, RunState::failed, 0, std::string("final checkpoint failed: ") + e.what(), false);
        } catch (...) {
        }
        std::lock_guard lk(a->m);
        a->state = to;
      }
    }
    Progress p = make_progress(id, *a, prev, prev_t);
    p.state = to;
    {
      std::lock_guard lk(a->m);
      a->progress = p;
      a->session_done = true;
    }
    if (to != from) emit_state(id, to, p);
    {
      std::lock_guard lk(mu);
      done_cv.notify_all();
    }
  }

  // With the run's control lock held.
  void launch(const std::string& id, const RunConfig& config, std::optional<Checkpoint> from,
              const Budget& budget) {
    auto a = std::make_shared<Active>();
    a->run = std::make_unique<Run>(id, config, *evaluator, std::move(from),
                                   evaluator->uses_jit() ? &interpreter : nullptr);
    Active* raw = a.get();
    {
      std::lock_guard lk(store_mu);
      store->set_state(id, RunState::running, pid, {}, true);
    }
    a->progress.run_id = id;
    a->progress.state = RunState::running;
    {
      std::lock_guard lk(mu);
      active[id] = a;
    }
    // Called by the run without its lock held (run.hpp): wake the session thread for new
    // bests and at the run's end.
    auto wake = [raw] {
      std::lock_guard lk(raw->m);
      raw->wake = true;
      raw->cv.notify_all();
    };
    a->run->on_end(wake);
    a->run->start(budget, [wake](const HallOfFameEntry&) { wake(); });
    // Copied before the session starts: from then on the session writes a->progress (under
    // a->m). TSan caught the copy made after the start racing with the session's first write.
    const Progress initial = a->progress;
    a->session = std::thread([this, id, a] { session(id, a); });
    emit_state(id, RunState::running, initial);
  }

  // Waits for a session's final checkpoint and forgets it.
  void join_and_forget(const std::string& id, const std::shared_ptr<Active>& a) {
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
    auto it = active.find(id);
    if (it != active.end() && it->second == a) active.erase(it);
  }

  // Ends an active session, with the run's control lock held. suspend: a shutdown.
  void end_session(const std::string& id, const std::shared_ptr<Active>& a, bool suspend) {
    {
      std::lock_guard p(a->persist);
      std::lock_guard lk(a->m);
      if (!a->ending && !a->session_done) {
        a->stop_requested = true;
        a->suspend = suspend;
      }
    }
    a->run->request_stop();
    join_and_forget(id, a);
  }

  // Forget sessions that ended on their own (budget spent, failure).
  void reap() {
    std::vector<std::pair<std::string, std::shared_ptr<Active>>> ended;
    {
      std::lock_guard lk(mu);
      for (auto& [id, a] : active) {
        std::lock_guard g(a->m);
        if (a->session_done) ended.emplace_back(id, a);
      }
    }
    for (const auto& [id, a] : ended) join_and_forget(id, a);
  }

  void resume_locked(const std::string& id, std::optional<Budget> extra) {
    if (auto a = find_active(id)) {
      std::unique_lock p(a->persist);
      const auto [st, ending] = a->state_and_ending();
      if (!ending) {
        const RunState to = transition(id, st, RunCommand::resume);  // a running run: 409
        a->run->unpause();
        {
          std::lock_guard lk(a->m);
          a->state = to;
        }
        {
          std::lock_guard lk(store_mu);
          store->set_state(id, to, pid, {}, true);
        }
        p.unlock();
        emit_state(id, to, latest_progress(*a));
        return;
      }
      p.unlock();
      join_and_forget(id, a);  // it is ending on its own: wait for its final checkpoint
    }
    const StoredRun r = stored(id);
    refuse_if_owned_elsewhere(r);
    const RunState resting = resting_state(r);
    transition(id, resting, RunCommand::resume);
    std::optional<Checkpoint> c;
    std::vector<HallOfFameEntry> hof;
    {
      std::lock_guard lk(store_mu);
      c = store->load_checkpoint(id);
      hof = store->hall_of_fame(id, 1);
    }
    // Hall-of-fame entries are written at once, checkpoints every few seconds: after a
    // kill the hall of fame may know a better best than the checkpoint. With an objective
    // "better" is the total, which a stored entry does not carry: the checkpoint's stands.
    if (c && !hof.empty() && hof.front().function.exact && !r.summary.config.objective.enabled() &&
        (!c->best || hof.front().function.chi2 < c->best->estimate.chi2)) {
      const ScoredFunction& f = hof.front().function;
      c->best = Member{f.program, f.program.hash(), {f.chi2, f.chi2_stderr, f.samples, f.exact}, f.born};
    }
    if (c && c->rngs.empty() && c->pool.empty()) c.reset();  // never checkpointed: start fresh
    const Budget budget = resumed_budget(r, resting, c, extra);
    launch(id, r.summary.config, std::move(c), budget);
  }
};

RunManager::RunManager(Options options) : impl_(std::make_unique<Impl>(std::move(options))) {
  if (impl_->options.engine || impl_->options.interpreter_only) {
    impl_->owned_evaluator = std::make_unique<avalanche::Evaluator>(impl_->options.engine);
  } else {
    impl_->owned_evaluator = avalanche::Evaluator::with_own_engine();
  }
  impl_->owned_evaluator->use_device(impl_->options.device);
  impl_->evaluator = impl_->owned_evaluator.get();
  impl_->store = std::make_unique<Store>(impl_->options.data_dir);
  impl_->lease = std::make_unique<ProcessLease>(impl_->options.data_dir, impl_->pid);
}

RunManager::~RunManager() {
  try {
    shutdown();
  } catch (...) {
  }
}

void RunManager::shutdown() {
  std::vector<std::pair<std::string, std::shared_ptr<Impl::Active>>> all;
  {
    std::lock_guard lk(impl_->mu);
    for (auto& [id, a] : impl_->active) all.emplace_back(id, a);
  }
  // All at once: each stop waits for its run's workers and final checkpoint.
  std::vector<std::thread> stoppers;
  for (auto& [id, a] : all)
    stoppers.emplace_back([this, id = id, a = a] {
      try {
        auto c = impl_->control(id);
        std::lock_guard lk(*c);
        impl_->end_session(id, a, true);
      } catch (...) {
      }
    });
  for (auto& t : stoppers) t.join();
}

std::vector<RunManager::Resumed> RunManager::resume_interrupted() {
  std::vector<std::string> ids;
  {
    std::lock_guard lk(impl_->store_mu);
    ids = impl_->store->runs_to_resume();
  }
  std::vector<Resumed> out;
  for (const auto& id : ids) {
    if (active(id)) continue;
    try {
      resume(id);
      out.push_back({id, {}});
    } catch (const RunNotFound&) {
    } catch (const std::exception& e) {
      out.push_back({id, e.what()});
    }
  }
  return out;
}

const std::filesystem::path& RunManager::data_dir() const { return impl_->options.data_dir; }

std::string RunManager::create(const RunConfig& config, bool start) {
  impl_->reap();
  // Round trip through JSON: the same validation as a config file, and what is stored.
  const RunConfig checked = run_config_from_json(to_json(config));
  const std::string id = random_id('r');
  {
    std::lock_guard lk(impl_->store_mu);
    impl_->store->create_run(id, checked, unix_now());
  }
  if (start) {
    auto c = impl_->control(id);
    std::lock_guard lk(*c);
    transition(id, RunState::created, RunCommand::start);
    impl_->launch(id, checked, std::nullopt, checked.budget);
  }
  return id;
}

void RunManager::resume(const std::string& id, std::optional<Budget> extra) {
  if (extra) validate_budget(*extra);
  impl_->reap();
  auto c = impl_->control(id);
  std::lock_guard lk(*c);
  impl_->resume_locked(id, extra);
}

void RunManager::pause(const std::string& id) {
  auto c = impl_->control(id);
  std::lock_guard lk(*c);
  if (auto a = impl_->find_active(id)) {
    std::unique_lock p(a->persist);
    const auto [st, ending] = a->state_and_ending();
    if (!ending) {
      if (st == RunState::paused) return;  // idempotent: no transition, no event
      const RunState to = transition(id, st, RunCommand::pause);
      // False: the workers have already stopped (budget spent at this moment); the
      // session will make it finished.
      if (!a->run->pause()) throw RunStateError("run " + id + " is finishing: its budget is spent");
      {
        std::lock_guard g(a->m);
        a->state = to;
      }
      {
        std::lock_guard g(impl_->store_mu);
        impl_->store->set_state(id, to, impl_->pid, {}, false);
      }
      p.unlock();
      impl_->emit_state(id, to, impl_->latest_progress(*a));
      return;
    }
    p.unlock();
    impl_->join_and_forget(id, a);
  }
  const StoredRun r = impl_->stored(id);
  impl_->refuse_if_owned_elsewhere(r);
  const RunState st = impl_->resting_state(r);
  if (st == RunState::paused) return;
  transition(id, st, RunCommand::pause);  // throws: only a running run can pause
}

void RunManager::stop(const std::string& id) {
  auto c = impl_->control(id);
  std::lock_guard lk(*c);
  if (auto a = impl_->find_active(id)) {
    bool claimed = false;
    {
      std::lock_guard p(a->persist);
      std::lock_guard g(a->m);
      if (!a->ending && !a->session_done) {
        transition(id, a->state, RunCommand::stop);
        a->stop_requested = true;
        claimed = true;
      }
    }
    if (claimed) {
      a->run->request_stop();
      impl_->join_and_forget(id, a);  // the session publishes "stopped" after its final checkpoint
      return;
    }
    impl_->join_and_forget(id, a);
  }
  const StoredRun r = impl_->stored(id);
  impl_->refuse_if_owned_elsewhere(r);
  const RunState to = transition(id, impl_->resting_state(r), RunCommand::stop);
  {
    std::lock_guard g(impl_->store_mu);
    impl_->store->set_state(id, to, 0, {}, false);
  }
  Progress p;
  p.run_id = id;
  p.counters = r.summary.counters;
  p.current_samples = r.summary.current_samples;
  p.best = best_of(r.summary.best, islands_best(r.summary.islands));
  impl_->emit_state(id, to, p);
}

void RunManager::remove(const std::string& id) {
  auto c = impl_->control(id);
  std::lock_guard lk(*c);
  // Another live process would lose its results: it writes its next checkpoint to a run
  // that is gone.
  impl_->refuse_if_owned_elsewhere(impl_->stored(id));
  if (auto a = impl_->find_active(id)) impl_->end_session(id, a, false);
  RunEvent gone;
  gone.type = RunEvent::Type::deleted;
  gone.run_id = id;
  gone.progress = progress(id);  // the last the run's listeners hear
  gone.state = gone.progress.state;
  {
    std::lock_guard g(impl_->store_mu);
    impl_->store->remove_run(id);
  }
  {
    std::lock_guard g(impl_->control_mu);
    impl_->controls.erase(id);
  }
  impl_->emit(gone);
}

bool RunManager::wait(const std::string& id, std::optional<double> timeout_s) {
  auto a = impl_->find_active(id);
  if (!a) {
    impl_->stored(id);
    return true;
  }
  // The session writes the final checkpoint after the workers end.
  std::unique_lock lk(impl_->mu);
  auto pred = [&] {
    std::lock_guard g(a->m);
    return a->session_done;
  };
  if (timeout_s)
    return impl_->done_cv.wait_for(lk, std::chrono::duration<double>(*timeout_s), pred);
  impl_->done_cv.wait(lk, pred);
  return true;
}

// Reads: RunQueries (run_queries.cpp).
const RunQueries& RunManager::queries() const { return impl_->queries; }
std::vector<RunSummary> RunManager::list() const { return impl_->queries.list(); }
RunSummary RunManager::get(const std::string& id) const { return impl_->queries.get(id); }
bool RunManager::active(const std::string& id) const { return impl_->queries.active(id); }
std::optional<ScoredFunction> RunManager::own_best(const std::string& id) const { return impl_->queries.own_best(id); }
std::map<int, Checkpoint> RunManager::island_checkpoints(const std::string& id) const {
  return impl_->queries.island_checkpoints(id);
}
Progress RunManager::progress(const std::string& id) const { return impl_->queries.progress(id); }
PoolPage RunManager::pool(const std::string& id, const PoolQuery& q) const { return impl_->queries.pool(id, q); }
std::optional<ScoredFunction> RunManager::best(const std::string& id) const { return impl_->queries.best(id); }
std::vector<ScoredFunction> RunManager::leaders(const std::string& id, std::size_t count) const {
  return impl_->queries.leaders(id, count);
}
std::vector<HistoryPoint> RunManager::history(const std::string& id, std::size_t max_points) const {
  return impl_->queries.history(id, max_points);
}
HallOfFamePage RunManager::hall_of_fame(const HallOfFameQuery& q) const { return impl_->queries.hall_of_fame(q); }
std::vector<HallOfFameEntry> RunManager::hall_of_fame(const std::string& run_id, std::size_t limit) const {
  return impl_->queries.hall_of_fame(run_id, limit);
}
std::optional<ScoredFunction> RunManager::function(const std::string& function_id) const {
  return impl_->queries.function(function_id);
}
std::optional<StoredQualityReport> RunManager::quality_report(const std::string& function_id,
                                                              const std::string& options) const {
  return impl_->queries.quality_report(function_id, options);
}
std::optional<Note> RunManager::note(NoteSubject subject, const std::string& id) const {
  return impl_->queries.note(subject, id);
}
std::string RunManager::dump(const std::string& id) const { return impl_->queries.dump(id); }

bool RunManager::with_active_run(const std::string& id, const std::function<void(Run&)>& fn) {
  auto a = impl_->find_active(id);
  if (!a) return false;
  {
    std::lock_guard lk(a->m);
    if (a->session_done || a->ending) return false;
  }
  fn(*a->run);  // the Active (and its run) is held by `a` meanwhile
  return true;
}

void RunManager::set_islands(const std::string& id, const std::vector<IslandStatus>& islands) {
  const std::optional<ScoredFunction> reported = islands_best(islands);
  const auto a = impl_->find_active(id);
  // Orders this with the session's checkpoints: a best that comes while the session is not
  // ending goes into its next checkpoint's history, else straight into the store.
  std::unique_lock<std::mutex> persist;
  if (a) persist = std::unique_lock(a->persist);
  const RunSummary before = impl_->summary(impl_->stored(id));  // the run's best until now
  {
    std::lock_guard lk(impl_->store_mu);
    impl_->store->set_islands(id, islands);
  }
  if (!reported) return;
  const bool news = !before.best || better(*reported, *before.best);
  bool live = false;
  if (a) {
    std::lock_guard lk(a->m);
    live = !a->ending && !a->session_done;
  }
  const RunCounters at = live ? a->run->counters() : before.counters;
  HistoryPoint point;
  point.elapsed_s = at.elapsed_s;
  point.tournaments = at.tournaments;
  point.scored = at.scored;
  point.best_chi2 = reported->chi2;
  point.best_exact = reported->exact;
  if (live) {
    std::lock_guard lk(a->m);
    if (!a->elsewhere || better(*reported, *a->elsewhere)) {
      a->elsewhere = reported;
      a->elsewhere_steps.push_back({point, news});
    }
  } else if (news) {
    std::lock_guard lk(impl_->store_mu);
    impl_->store->add_history(id, {point});
  }
  if (persist.owns_lock()) persist.unlock();
  if (!news) return;
  RunEvent ev;
  ev.type = RunEvent::Type::new_best;
  ev.run_id = id;
  ev.best = reported;
  ev.progress = live ? impl_->latest_progress(*a) : progress(id);
  ev.progress.best = reported;
  impl_->emit(ev);
}

void RunManager::set_island_checkpoint(const std::string& id, int rank, const Checkpoint& checkpoint) {
  std::lock_guard lk(impl_->store_mu);
  impl_->store->put_island_checkpoint(id, rank, checkpoint);
}

void RunManager::add_hall_of_fame(const std::vector<HallOfFameEntry>& entries) {
  std::lock_guard lk(impl_->store_mu);
  impl_->store->add_hall_of_fame(entries);
}

void RunManager::put_quality_report(const std::string& function_id, const std::string& options,
                                    const std::string& report, double computed_at) {
  std::lock_guard g(impl_->store_mu);
  impl_->store->put_quality_report(function_id, options, report, computed_at);
}

std::optional<Note> RunManager::set_note(NoteSubject subject, const std::string& id, const std::string& text,
                                         std::optional<std::uint64_t> base_version) {
  if (subject == NoteSubject::function && !function(id)) {
    std::lock_guard g(impl_->store_mu);
    if (!impl_->store->note(subject, id)) return std::nullopt;
  }
  std::optional<Note> saved;
  {
    std::lock_guard g(impl_->store_mu);
    saved = impl_->store->put_note(subject, id, text, base_version, unix_now());
  }
  if (!saved && subject == NoteSubject::run) throw RunNotFound(id);
  return saved;
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
