#include "evolver/run/run.hpp"

#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <limits>

#include "avalanche/stats/chi_square.hpp"
#include "avalanche/count/exact_counter.hpp"
#include "evolver/search/acceptance.hpp"
#include "evolver/search/crossover.hpp"
#include "evolver/search/early_reject.hpp"
#include "evolver/search/leader_ranking.hpp"
#include "evolver/search/local_search.hpp"
#include "evolver/search/mutation.hpp"
#include "evolver/search/restart.hpp"
#include "evolver/search/tournament.hpp"
#include "mixer/text_form.hpp"

namespace mixforge::evolver {

ScoredFunction scored_function(const Member& m) {
  ScoredFunction f;
  f.id = m.program.id();
  f.program = m.program;
  f.text = mixer::format_program(m.program);
  f.width = m.program.width();
  f.steps = static_cast<int>(m.program.size());
  f.chi2 = m.estimate.chi2;
  f.chi2_stderr = m.estimate.stderr_;
  f.samples = m.estimate.samples;
  f.exact = m.estimate.exact;
  if (m.estimate.exact) f.chi2_exact = m.estimate.chi2;
  f.bias = avalanche::bias_from_chi2(m.estimate.chi2, f.width);
  f.born = m.born;
  f.objective = m.objective;
  return f;
}

Run::Run(std::string id, RunConfig config, const avalanche::Evaluator& evaluator, std::optional<Checkpoint> from,
         const avalanche::Evaluator* small_work, double small_work_limit)
    : id_(std::move(id)),
      config_(std::move(config)),
      evaluator_(evaluator),
      small_work_(small_work),
      small_work_limit_(small_work_limit),
      cache_(static_cast<std::size_t>(config_.memetic.score_cache)),
      stagnation_(config_.restart),
      trap_clock_(trap_restart(config_.restart)) {
  pool_target_ = config_.pool_size;
  ranker_rng_ = Rng(config_.seed, 0x72616e6b6572ull);
  shape_.width = config_.width;
  shape_.min_steps = config_.min_steps;
  shape_.max_steps = config_.max_steps;
  shape_.kinds = usable_kinds(config_.kinds(), config_.width);
  shape_.kind_weights = config_.kind_weights;
  if (config_.kind_sequence) shape_.kind_sequence = *config_.kind_sequence;
  if (from) {
    for (Member& m : from->pool) pool_.insert(std::move(m));
    counters_ = from->counters;
    current_samples_ = from->current_samples;
    next_leader_at_ = from->next_leader_at;
    rngs_ = from->rngs;
    best_ = from->best;
    sessions_ = from->sessions;
    session_budget_ = from->session;
    if (from->stagnation_clock && from->trap_clock) {
      stagnation_.restore(*from->stagnation_clock);
      trap_clock_.restore(*from->trap_clock);
      clocks_live_ = true;  // start() leaves them
    }
  } else {
    current_samples_ = exact_mode() ? 0 : config_.precision.initial_samples;
    next_leader_at_ = config_.precision.leader_interval;
  }
  // One RNG stream per worker slot; slots beyond the checkpoint's get fresh streams that
  // also depend on the session count, so a resumed run does not replay old draws.
  const unsigned workers = config_.worker_threads();
  for (unsigned s = static_cast<unsigned>(rngs_.size()); s < workers; ++s)
    rngs_.push_back(Rng(config_.seed, s + (sessions_ << 20)).state());
  migration_rng_ = Rng(config_.seed, (std::uint64_t{1} << 40) + sessions_);
  // Seed programs' climbs, continued from the checkpoint's centres (their places in the
  // neighbourhoods are not kept: a resumed climb starts again around its centre, and skips
  // nothing lower, as none of what it scored before was lower than the centre).
  for (std::size_t i = 0; i < config_.seed_programs.size(); ++i) {
    SeedClimb c;
    c.status.seed = i;
    c.status.start = config_.seed_programs[i];
    if (from && i < from->climbs.size() && from->climbs[i].start == c.status.start) {
      c.status = from->climbs[i];
      c.moves_before = c.status.moves;
      c.scored_before = c.status.scored;
      if (c.status.centre && !c.status.done) c.climb.emplace(*c.status.centre, c.status.chi2_exact);
    }
    climbs_.push_back(std::move(c));
  }
  // A checkpoint keeps no objective terms (the store has no place for them): they are a
  // function of the program and the configuration, so they are measured again, the same.
  if (from && config_.objective.enabled()) {
    std::vector<Member*> todo;
    for (std::size_t i = 0; i < pool_.size(); ++i) todo.push_back(&pool_[i]);
    if (best_) todo.push_back(&*best_);
    tbb::parallel_for(std::size_t{0}, todo.size(), [&](std::size_t i) { with_objective(*todo[i]); });
  }
}

std::optional<ObjectiveTerms> Run::objective_of(const mixer::Program& p, double chi2) const {
  const ObjectiveConfig& o = config_.objective;
  if (!o.enabled()) return std::nullopt;
  // Inputs the measures evaluate (both sides of each flip), for the evaluator choice; the
  // RRC battery's millions make it the JIT's whenever it runs.
  std::uint64_t inputs = 2 * o.samples * static_cast<std::uint64_t>(p.width() + 2);
  if (o.rrc_weight > 0) inputs = std::max<std::uint64_t>(inputs, std::uint64_t{1} << 24);
  return objective_terms(pick(p, inputs).batch_function(p), p.width(), o, objective_seed(config_.seed), nullptr, chi2);
}

void Run::with_objective(Member& m) const {
  m.objective = objective_of(m.program, m.estimate.chi2);
  m.estimate.penalty = m.objective ? m.objective->penalty : 0;
}

Run::~Run() {
  request_stop();
  for (auto& t : threads_)
    if (t.joinable()) t.join();
}

const avalanche::Evaluator& Run::pick(const mixer::Program& p, std::uint64_t inputs) const {
  return small_work_ && scoring_work(p, inputs) < small_work_limit_ ? *small_work_ : evaluator_;
}

bool Run::exact_mode() const { return config_.width <= config_.precision.exact_max_width; }

std::uint64_t Run::sample_seed(std::uint64_t samples) const {
  // All programs scored at one precision share their inputs: a child and its parent are
  // compared on the same samples, which cancels much of the sampling noise.
  return mix_seed(config_.seed, samples);
}

std::optional<Estimate> Run::cached_exact(const mixer::Program& p) const {
  const std::optional<double> chi2 = cache_.find(p.hash());
  if (!chi2) return std::nullopt;
  return Estimate{*chi2, 0, std::uint64_t{1} << p.width(), true};
}

Estimate Run::full_score(const mixer::Program& p, std::uint64_t samples, std::uint64_t* used) const {
  if (exact_mode() || samples == 0) {
    // Counted whether or not the cache knows the score: the counters (and so a resumed
    // run, whose cache starts empty) do not depend on what the cache holds.
    if (used) *used += std::uint64_t{1} << p.width();
    if (auto e = cached_exact(p)) return *e;
    const Estimate e = estimate_of(pick(p, std::uint64_t{1} << p.width()).exact(p));
    cache_.put(p.hash(), e.chi2);
    return e;
  }
  if (used) *used += samples;
  return estimate_of(pick(p, samples).sampled(p, samples, sample_seed(samples)));
}

double Run::reject_threshold(double parent_rank) const {
  return std::max(parent_rank, quality_floor(config_.width)) * (1 + config_.early_reject.margin);
}

Run::ChildScore Run::score_child(const mixer::Program& p, double parent_rank, std::uint64_t samples) const {
  ChildScore out;
  const auto& er = config_.early_reject;
  const double threshold = reject_threshold(parent_rank);
  if (exact_mode()) {
    const std::uint64_t total = std::uint64_t{1} << config_.width;
    if (er.enabled && er.first_samples * 4 <= total) {
      // A cheap sampled look first: reject when, with the configured confidence, the child
      // is worse than the threshold (the rule of Evaluator::staged).
      const avalanche::Score s = pick(p, er.first_samples).sampled(p, er.first_samples, sample_seed(er.first_samples));
      out.samples += er.first_samples;
      if (s.chi2_corrected - avalanche::normal_quantile(er.confidence) * s.chi2_stderr > threshold) {
        out.estimate = estimate_of(s);
        out.rejected = true;
        out.saved = total - er.first_samples;
        return out;
      }
    }
    out.estimate = full_score(p, 0, &out.samples);
    return out;
  }
  const StagedChild c = staged_with_reject(p, samples, sample_seed(samples), er, threshold, evaluator_,
                                           small_work_, small_work_limit_);
  out.estimate = c.estimate;
  out.rejected = c.rejected;
  out.samples = c.samples;
  out.saved = c.saved;
  return out;
}

Budget SessionBudget::remaining(const RunCounters& at) const {
  Budget left;
  if (budget.tournaments) {
    const std::uint64_t spent = at.tournaments > start_tournaments ? at.tournaments - start_tournaments : 0;
    left.tournaments = *budget.tournaments > spent ? *budget.tournaments - spent : 0;
  }
  if (budget.seconds) left.seconds = std::max(0.0, *budget.seconds - std::max(0.0, at.elapsed_s - start_elapsed_s));
  return left;
}

void Run::start(const Budget& budget, NewBestCallback on_new_best) {
  std::lock_guard lk(mu_);
  if (!threads_.empty()) throw std::logic_error("a run is started once");
  budget_ = budget;
  on_new_best_ = std::move(on_new_best);
  session_start_ = std::chrono::steady_clock::now();
  session_start_elapsed_ = counters_.elapsed_s;
  if (!clocks_live_) {
    stagnation_.start_pool(stagnation_now_locked());
    trap_clock_.start_pool(double(counters_.tournaments));
    clocks_live_ = true;
  }
  session_start_tournaments_ = counters_.tournaments;
  session_budget_ = SessionBudget{budget, session_start_tournaments_, session_start_elapsed_};
  ++sessions_;
  const unsigned workers = config_.worker_threads();
  const bool ranker = !exact_mode() && config_.width <= 32 && config_.precision.exact_leaders;
  running_workers_ = workers + (ranker ? 1 : 0);
  for (unsigned s = 0; s < workers; ++s) threads_.emplace_back([this, s] { worker(s); });
  if (ranker) threads_.emplace_back([this] { worker(~0u); });
}

void Run::request_stop() {
  exact_cancel_ = true;
  std::lock_guard lk(mu_);
  stop_ = true;
  cv_.notify_all();
}

bool Run::pause() {
  std::lock_guard lk(mu_);
  if (stop_ || (!threads_.empty() && running_workers_ == 0)) return false;
  if (!paused_) {
    paused_ = true;
    pause_started_ = std::chrono::steady_clock::now();
  }
  return true;
}

void Run::unpause() {
  std::lock_guard lk(mu_);
  if (paused_) {
    paused_ = false;
    paused_seconds_ +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - pause_started_).count();
    cv_.notify_all();
  }
}

bool Run::paused() const {
  std::lock_guard lk(mu_);
  return paused_;
}

bool Run::done() const {
  std::lock_guard lk(mu_);
  return !threads_.empty() && running_workers_ == 0;
}

bool Run::wait(std::optional<double> timeout_s) {
  std::unique_lock lk(mu_);
  auto pred = [&] { return running_workers_ == 0; };
  if (!timeout_s) {
    cv_.wait(lk, pred);
    return true;
  }
  return cv_.wait_for(lk, std::chrono::duration<double>(*timeout_s), pred);
}

bool Run::budget_spent() const {
  std::lock_guard lk(mu_);
  return budget_spent_;
}

std::string Run::error() const {
  std::lock_guard lk(mu_);
  return error_;
}

double Run::elapsed_locked() const {
  if (threads_.empty()) return counters_.elapsed_s;
  const auto now = std::chrono::steady_clock::now();
  double paused = paused_seconds_;
  if (paused_) paused += std::chrono::duration<double>(now - pause_started_).count();
  return session_start_elapsed_ + std::chrono::duration<double>(now - session_start_).count() - paused;
}

bool Run::budget_reached_locked() const {
  if (budget_.tournaments && counters_.tournaments - session_start_tournaments_ >= *budget_.tournaments)
    return true;
  if (budget_.seconds && elapsed_locked() - session_start_elapsed_ >= *budget_.seconds) return true;
  return false;
}

Checkpoint Run::snapshot() const {
  const auto t0 = std::chrono::steady_clock::now();
  Checkpoint c;
  {
    std::lock_guard lk(mu_);
    c.pool = pool_.members();
    c.counters = counters_;
    c.counters.elapsed_s = elapsed_locked();
    c.current_samples = current_samples_;
    c.next_leader_at = next_leader_at_;
    c.rngs = rngs_;
    c.best = best_;
    c.sessions = sessions_;
    c.session = session_budget_;
    for (const SeedClimb& sc : climbs_) c.climbs.push_back(sc.status);
    // A run never started from a checkpoint without clocks has none to save: zeros would
    // make its next resume think the pool had waited since tournament 0.
    if (clocks_live_) {
      c.stagnation_clock = stagnation_.state();
      c.trap_clock = trap_clock_.state();
    }
    const double pause = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    max_snapshot_pause_ = std::max(max_snapshot_pause_, pause);
  }
  return c;
}

std::vector<HistoryPoint> Run::drain_history() {
  std::lock_guard lk(mu_);
  return std::exchange(history_, {});
}

std::vector<HallOfFameEntry> Run::drain_hall_of_fame() {
  std::lock_guard lk(mu_);
  return std::exchange(hall_of_fame_, {});
}

RunCounters Run::counters() const {
  std::lock_guard lk(mu_);
  RunCounters c = counters_;
  c.elapsed_s = elapsed_locked();
  return c;
}

std::optional<Member> Run::best() const {
  std::lock_guard lk(mu_);
  return best_;
}

std::vector<ClimbStatus> Run::climbs() const {
  std::lock_guard lk(mu_);
  std::vector<ClimbStatus> out;
  for (const SeedClimb& sc : climbs_) out.push_back(sc.status);
  return out;
}

std::uint64_t Run::current_samples() const {
  std::lock_guard lk(mu_);
  return current_samples_;
}

std::size_t Run::pool_size() const {
  std::lock_guard lk(mu_);
  return pool_.size();
}

double Run::max_snapshot_pause() const {
  std::lock_guard lk(mu_);
  return max_snapshot_pause_;
}

void Run::add_history_locked() {
  HistoryPoint h;
  h.elapsed_s = elapsed_locked();
  h.tournaments = counters_.tournaments;
  h.scored = counters_.scored;
  if (best_) {
    h.best_chi2 = best_->estimate.chi2;
    h.best_exact = best_->estimate.exact;
  } else if (!pool_.empty()) {
    h.best_chi2 = pool_[pool_.best()].estimate.rank();
  }
  history_.push_back(h);
}

// The run's best is ranked by exact chi2 (n <= 32); wider runs use their most precise
// leaders' estimates.
void Run::consider_best_locked(const Member& m) {
  const bool exact_expected = config_.width <= 32 && !exact_unaffordable_;
  if (exact_expected && !m.estimate.exact) return;
  if (best_ && best_->estimate.exact && !m.estimate.exact) return;  // exact scores outrank estimates
  const bool upgrade = best_ && !best_->estimate.exact && m.estimate.exact;
  if (best_ && !upgrade && !(m.estimate.rank() < best_->estimate.rank())) return;
  best_ = m;
  HallOfFameEntry e;
  e.function = scored_function(m);
  e.run_id = id_;
  e.elapsed_s = elapsed_locked();
  e.tournaments = counters_.tournaments;
  e.recorded_at = unix_now();
  hall_of_fame_.push_back(e);
  announce_.push_back(e);
  add_history_locked();
}

void Run::announce(std::unique_lock<std::mutex>& lk) {
  if (announce_.empty()) return;
  const std::vector<HallOfFameEntry> news = std::exchange(announce_, {});
  lk.unlock();
  if (on_new_best_)
    for (const HallOfFameEntry& e : news) on_new_best_(e);
  lk.lock();
}

void Run::worker(unsigned slot) {
  try {
    if (slot == ~0u)
      ranker_loop();
    else
      worker_loop(slot);
  } catch (const std::exception& e) {
    std::lock_guard lk(mu_);
    if (error_.empty()) error_ = std::string("worker ") + std::to_string(slot) + ": " + e.what();
    stop_ = true;
  }
  std::unique_lock lk(mu_);
  try {
    announce(lk);
  } catch (...) {
    // The callback only wakes the run's owner; the entries are stored regardless.
  }
  const bool last = --running_workers_ == 0;
  if (last) counters_.elapsed_s = elapsed_locked();
  cv_.notify_all();
  if (last && end_hook_) {
    lk.unlock();  // the destructor joins this thread, so the run outlives the call
    end_hook_();
  }
}

void Run::leader_round(std::unique_lock<std::mutex>& lk) {
  ranking_ = true;
  const std::vector<RescoreJob> jobs = plan_leader_rescoring(pool_, config_);
  lk.unlock();
  std::vector<RescoreResult> results;
  for (const RescoreJob& j : jobs) results.push_back(run_rescore(j, evaluator_));
  lk.lock();
  ranking_ = false;
  for (const RescoreResult& r : results)
    if (auto i = pool_.find(r.hash)) {
      const double penalty = pool_[*i].estimate.penalty;  // the terms do not change
      pool_[*i].estimate = r.estimate;
      pool_[*i].estimate.penalty = penalty;
    }
  // Without exact scores (n > 32, or too slow an evaluator) the best is the most
  // precisely scored leader.
  if (config_.width > 32 || exact_unaffordable_)
    for (const RescoreResult& r : results)
      if (r.estimate.samples >= config_.precision.max_samples)
        if (auto i = pool_.find(r.hash)) consider_best_locked(pool_[*i]);
  // Leaders that could beat the exact best go to the background ranker.
  if (!exact_mode()) {
    std::optional<double> best_exact;
    if (best_ && best_->estimate.exact) best_exact = best_->estimate.rank();
    exact_queue_ = exact_candidates(pool_, config_, best_exact, exact_done_);
    if (!exact_queue_.empty()) cv_.notify_all();
  }
  // More precision once the pool's best is lost in the noise floor.
  if (!exact_mode() && !pool_.empty() && current_samples_ < config_.precision.max_samples) {
    const double best_rank = pool_[pool_.best()].estimate.chi2_rank();  // the avalanche's noise
    if (best_rank < coarse_level(config_, current_samples_))
      current_samples_ = std::min(current_samples_ * 4, config_.precision.max_samples);
  }
  restart_if_stagnant_locked();
  add_history_locked();
  next_leader_at_ = counters_.tournaments + config_.precision.leader_interval;
}

// Part of the pool (restart_victims) makes room for fresh random programs (fill_step
// refills the freed slots) when the pool's best has made no progress for too long. Called
// after the leaders' rescoring, so the pool's best is its most precise estimate. A trap
// restart (the pool still coarse and stuck) replaces the whole pool, whatever the other
// restart fields say.
void Run::restart_if_stagnant_locked() {
  const RestartConfig& r = config_.restart;
  // A leader round that ends after the budget (another worker's last tournament) or a
  // stop: a restart then would only leave the run's last pool half empty.
  if (pool_.size() < 4 || stop_ || budget_reached_locked()) return;
  const double best = pool_[pool_.best()].estimate.rank();
  if (r.trap_tournaments > 0 && is_coarse(config_, current_samples_)) {
    const double t = double(counters_.tournaments);
    trap_clock_.observe(trap_clock_rank(config_, current_samples_, best), t);
    if (trap_clock_.due(t)) {
      full_restart_locked();
      return;
    }
  }
  if (!r.enabled()) return;
  const double now = stagnation_now_locked();
  stagnation_.observe(best, now);
  if (!stagnation_.due(now)) return;
  for (std::uint64_t h : restart_victims(pool_, r, config_.precision.leaders))
    if (auto i = pool_.find(h)) pool_.remove_at(*i);
  if (pool_.empty()) {
    full_restart_locked();
    return;
  }
  stagnation_.partial_restart(now);
  ++counters_.restarts;
  cv_.notify_all();
}

void Run::full_restart_locked() {
  pool_.clear();
  // A pool started afresh also starts its precision afresh: random programs need no
  // 2^22 samples to be told apart, and their children would pay for them.
  if (!exact_mode()) current_samples_ = config_.precision.initial_samples;
  exact_queue_.clear();  // leaders of the pool that is gone
  ++pool_generation_;    // children bred from it are dropped
  stagnation_.start_pool(stagnation_now_locked());
  trap_clock_.start_pool(double(counters_.tournaments));
  ++counters_.restarts;
  cv_.notify_all();
}

double Run::stagnation_now_locked() const {
  return config_.restart.in_tournaments() ? double(counters_.tournaments) : elapsed_locked();
}

double Run::estimated_exact_seconds_locked() const {
  // Measured on this run's own exact scores once there is one; before that, an
  // interpreter-only build is assumed too slow above 24 bits (2^24 inputs take seconds).
  if (exact_seconds_ > 0) return exact_seconds_;
  if (!evaluator_.uses_jit() && config_.width > 24) return std::numeric_limits<double>::infinity();
  return 0;
}

// An exact score on the ranker's thread, under an arena of the run's size and its cancel
// flag (throws EvaluationCancelled on a requested stop). Called without the lock.
Estimate Run::exact_estimate(const mixer::Program& p) {
  Estimate e;
  const auto t0 = std::chrono::steady_clock::now();
  {
    std::lock_guard lk(mu_);
    exact_running_ = true;
  }
  struct Done {  // however the score ends (a cancel throws), the workers may go on
    Run& run;
    ~Done() {
      std::lock_guard lk(run.mu_);
      run.exact_running_ = false;
      run.cv_.notify_all();
    }
  } done{*this};
  if (exact_start_hook_) exact_start_hook_();
  tbb::task_arena arena(static_cast<int>(config_.worker_threads()));
  arena.execute([&] { e = estimate_of(avalanche::score(evaluator_.counts_exact(p, &exact_cancel_))); });
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::lock_guard lk(mu_);
  exact_seconds_ = exact_seconds_ > 0 ? 0.8 * exact_seconds_ + 0.2 * took : took;
  ++counters_.exact_scored;
  return e;
}

// The background ranker: exact scores of leaders (n <= 32), and local search around the
// exact best whenever no leader waits. It never changes the pool, so the search itself
// does not depend on when its results arrive.
void Run::ranker_loop() {
  for (;;) {
    std::unique_lock lk(mu_);
    cv_.wait(lk, [&] {
      return stop_ || (!paused_ && (!exact_queue_.empty() || local_search_wanted_locked() || kick_wanted_locked()));
    });
    if (stop_) return;
    if (exact_queue_.empty()) {
      const bool polishing = local_search_wanted_locked();
      if (polishing && (!local_search_ || local_search_->settled().hash() != best_->hash)) {
        local_search_ = std::make_unique<LocalSearch>(best_->program, best_->estimate.chi2,
                                                      ranker_search_options(mix_seed(config_.seed, 0x10ca15ea4c4ull)));
        local_neighbours_seen_ = 0;
      }
      if (!polishing && !kicked_) start_kick_locked();
      lk.unlock();
      try {
        if (polishing)
          polish();
        else
          kick_search();
      } catch (const avalanche::EvaluationCancelled&) {
        return;
      }
      continue;
    }
    // One exact score per leader round, the most promising leader: exact scores cost
    // all cores for seconds (2^n inputs), the search must keep most of the machine.
    Member m = exact_queue_.front();
    exact_queue_.clear();
    if (estimated_exact_seconds_locked() > config_.precision.exact_max_seconds) {
      exact_unaffordable_ = true;
      exact_queue_.clear();
      continue;
    }
    exact_done_.push_back(m.hash);
    lk.unlock();
    try {
      const double penalty = m.estimate.penalty;  // exact avalanche; the objective's terms stay
      m.estimate = exact_estimate(m.program);
      m.estimate.penalty = penalty;
      // The RRC term's chi2 bound was judged on the sampled estimate: a leader whose exact
      // chi2 is under it has its depth measured now.
      const ObjectiveConfig& o = config_.objective;
      if (o.rrc_weight > 0 && o.rrc_chi2_bound > 0 && m.objective && m.objective->rrc_depth_log2 == 0 &&
          m.estimate.chi2 <= o.rrc_chi2_bound)
        with_objective(m);
    } catch (const avalanche::EvaluationCancelled&) {
      return;  // a requested stop: nothing of this score is kept
    }
    lk.lock();
    consider_best_locked(m);
    announce(lk);
  }
}

// The ranker's searches (polish and the iterated ones) compare on local_search's stages.
LocalSearchOptions Run::ranker_search_options(std::uint64_t seed) const {
  LocalSearchOptions o;
  o.first_samples = config_.local_search.first_samples;
  o.max_samples = config_.local_search.max_samples;
  o.z = config_.local_search.z;
  o.pairs = config_.local_search.pairs;
  o.decisive_z = config_.local_search.decisive_z;
  o.seed = seed;
  return o;
}

// Adds the neighbours `ls` compared since the last call (seen) to the run's counter.
void Run::count_neighbours_locked(const LocalSearch& ls, std::uint64_t& seen) {
  counters_.local_neighbours += ls.counters().neighbours - seen;
  seen = ls.counters().neighbours;
}

bool Run::exact_done_locked(std::uint64_t hash) const {
  return std::find(exact_done_.begin(), exact_done_.end(), hash) != exact_done_.end();
}

bool Run::local_search_wanted_locked() const {
  // The seed programs' climbs polish the best exactly: the ranker's search waits for them.
  if (climbs_pending_locked()) return false;
  if (!config_.local_search.enabled || exact_unaffordable_ || !best_ || !best_->estimate.exact ||
      config_.width > 32)
    return false;
  return !local_search_ || local_search_->settled().hash() != best_->hash || !local_search_->done();
}

// Local search from the run's exact best (local_search_, owned by this thread) until a
// local optimum, a stop, or a leader waiting for its exact score (then it yields and
// goes on later from where it was). Its improvements become the run's best.
void Run::polish() {
  LocalSearch& ls = *local_search_;
  auto count = [&] { count_neighbours_locked(ls, local_neighbours_seen_); };
  LocalSearchHooks hooks;
  hooks.exact = [&](const mixer::Program& q) { return exact_estimate(q); };
  hooks.keep_going = [&] {
    std::unique_lock lk(mu_);
    count();
    return !stop_ && !paused_ && exact_queue_.empty();
  };
  hooks.skip = [&](std::uint64_t h) {
    std::lock_guard lk(mu_);
    return exact_done_locked(h);
  };
  // Local search improves the exact chi2; with an objective, the improvement still has to
  // beat the best's total (consider_best_locked) to become the run's best.
  hooks.improved = [&](const mixer::Program& q, const Estimate& e) {
    Member m{q, q.hash(), e, 0};
    with_objective(m);
    std::unique_lock lk(mu_);
    m.born = counters_.tournaments;
    exact_done_.push_back(m.hash);
    ++counters_.local_improvements;
    consider_best_locked(m);
    announce(lk);
    return !stop_;
  };
  ls.run(evaluator_, hooks);
  std::lock_guard lk(mu_);
  count();
}

std::uint64_t Run::kicks() const {
  std::lock_guard lk(mu_);
  return kicks_;
}

bool Run::kick_wanted_locked() const {
  if (climbs_pending_locked()) return false;
  const LocalSearchConfig& c = config_.local_search;
  if (!c.enabled || !c.iterated || exact_unaffordable_ || !best_ || !best_->estimate.exact || config_.width > 32)
    return false;
  // The best's own search comes first (local_search_wanted_locked), then the kicks.
  return local_search_ && local_search_->settled().hash() == best_->hash && local_search_->done();
}

// The next iterated search: from one of the pool's leaders (another basin the pool holds)
// or from the best after kick_moves random moves of its neighbourhood (one move would only
// lead back: the best is a local optimum of it).
void Run::start_kick_locked() {
  const LocalSearchConfig& c = config_.local_search;
  mixer::Program start = best_->program;
  bool from_leader = false;
  if (ranker_rng_.chance(c.leader_starts)) {
    std::vector<std::size_t> top = pool_.top(static_cast<std::size_t>(std::max(config_.precision.leaders, 2)));
    std::erase_if(top, [&](std::size_t i) { return pool_[i].hash == best_->hash; });
    if (!top.empty()) {
      start = pool_[top[ranker_rng_.below(top.size())]].program;
      from_leader = true;
    }
  }
  if (!from_leader)
    for (int k = 0; k < c.kick_moves; ++k) {
      const std::vector<mixer::Program> around = neighbours(start);
      if (around.empty()) break;
      start = around[ranker_rng_.below(around.size())];
    }
  kicked_ = std::make_unique<LocalSearch>(start, std::numeric_limits<double>::quiet_NaN(),
                                          ranker_search_options(mix_seed(config_.seed, 0x6b69636b00ull + kicks_)));
  kicked_neighbours_seen_ = 0;
  kicked_moves_ = 0;
  ++kicks_;
}

// The iterated search in hand (kicked_) until its local optimum, kick_max_moves moves, or
// something more urgent (a stop, a leader's exact score, a new best to polish): then it
// yields and goes on later from where it was. Its end point is scored exactly when it may
// beat the best; if it does, it is the new best, and polish() takes it from there.
void Run::kick_search() {
  LocalSearch& ls = *kicked_;
  auto count = [&] { count_neighbours_locked(ls, kicked_neighbours_seen_); };
  LocalSearchHooks hooks;
  hooks.keep_going = [&] {
    std::unique_lock lk(mu_);
    count();
    return !stop_ && !paused_ && exact_queue_.empty() && !local_search_wanted_locked();
  };
  hooks.skip = [&](std::uint64_t h) {
    std::lock_guard lk(mu_);
    return (best_ && best_->hash == h) || exact_done_locked(h);
  };
  hooks.improved = [&](const mixer::Program&, const Estimate&) {
    return ++kicked_moves_ < config_.local_search.kick_max_moves;
  };
  ls.run(evaluator_, hooks);
  std::unique_lock lk(mu_);
  count();
  if (!ls.done() && kicked_moves_ < config_.local_search.kick_max_moves) return;  // interrupted
  const std::optional<avalanche::Score> s = ls.centre_score();
  const mixer::Program end = ls.centre();
  kicked_.reset();
  if (!s || !best_ || exact_done_locked(end.hash())) return;
  if (!(s->chi2_corrected - config_.local_search.z * s->chi2_stderr < best_->estimate.chi2)) return;
  exact_done_.push_back(end.hash());
  lk.unlock();
  Member m{end, end.hash(), exact_estimate(end), 0};  // may throw EvaluationCancelled
  with_objective(m);
  lk.lock();
  m.born = counters_.tournaments;
  const bool better = m.estimate.exact && best_ && m.estimate.rank() < best_->estimate.rank();
  consider_best_locked(m);
  if (better) ++counters_.local_improvements;
  announce(lk);
}

// The worker: one step at a time (fill the pool, a leader round, or a tournament), each
// under the locking rule of run.hpp. The RNG state is saved at every commit: a snapshot
// taken while this worker is between commits replays its current step on resume.
void Run::worker_loop(unsigned slot) {
  std::unique_lock lk(mu_);
  for (;;) {
    // Tournaments need two members: while the pool is short and other workers are
    // filling it, wait for them instead of drawing from too small a pool.
    // With exact_priority, an exact score in flight has the machine to itself.
    cv_.wait(lk, [&] {
      return stop_ || (!paused_ && !(exact_running_ && config_.local_search.exact_priority) &&
                       (pool_.size() >= 2 || pool_.size() + pending_ < pool_target_));
    });
    if (stop_) return;
    const bool short_pool = pool_.size() + pending_ < pool_target_;
    // The budget ends a run with a full pool: slots a restart or a last tournament left
    // empty are filled first (a program scored each), and the fills and tournaments still
    // in flight, which can leave a slot empty (a duplicate, a restart), are awaited.
    if (!short_pool && budget_reached_locked()) {
      if (pending_ > 0 || breeding_ > 0) {
        cv_.wait(lk, [&] { return stop_ || (pending_ == 0 && breeding_ == 0); });
        continue;
      }
      budget_spent_ = true;
      stop_ = true;
      cv_.notify_all();
      return;
    }
    Rng rng(rngs_[slot]);
    if (short_pool)
      fill_step(lk, rng);
    else if (climb_wanted_locked())
      climb_step(lk);
    else if (!ranking_ && counters_.tournaments >= next_leader_at_)
      leader_round(lk);
    else
      tournament_step(lk, rng);
    rngs_[slot] = rng.state();
    announce(lk);
  }
}

bool Run::pool_contains(std::uint64_t hash) const {
  std::lock_guard lk(mu_);
  return pool_.contains(hash);
}

// Fill one pool slot (at the start, and after lost duplicates) with a fresh program.
void Run::fill_step(std::unique_lock<std::mutex>& lk, Rng& rng) {
  ++pending_;
  // Fresh programs are nearly all poor: scored at the initial precision (their rank is
  // never better than their noise), the leader rounds refine those that lead.
  const std::uint64_t samples = std::min(current_samples_, config_.precision.initial_samples);
  lk.unlock();
  mixer::Program p;
  bool unique = false;
  for (int attempt = 0; attempt < 100 && !unique; ++attempt) {
    p = random_program(shape_, rng);
    unique = !pool_contains(p.hash());
  }
  std::uint64_t used = 0;
  std::optional<Member> m;
  if (unique) {
    m = Member{p, p.hash(), full_score(p, samples, &used), 0};
    with_objective(*m);
  }
  lk.lock();
  --pending_;
  cv_.notify_all();  // workers waiting for a pool of two
  if (m) {
    counters_.scored += 1;
    counters_.samples += used;
    m->born = counters_.tournaments;
    if (pool_.insert(*m) && exact_mode()) consider_best_locked(*m);
  } else {
    // The space of distinct programs is nearly exhausted (tiny widths): keep the pool
    // at the size it has instead of spinning.
    if (pool_.size() + pending_ < 2) throw std::runtime_error("cannot find two distinct programs for the pool");
    pool_target_ = std::max<std::size_t>(pool_.size() + pending_, 2);
  }
}

// A tournament; when its loser is to be removed, a child of the winner replaces it.
void Run::tournament_step(std::unique_lock<std::mutex>& lk, Rng& rng) {
  const TournamentOutcome t = hold_tournament(pool_, config_.temperature, config_.width, rng);
  if (!t.remove) {
    ++counters_.tournaments;
    return;
  }
  Breeding b{pool_[t.winner], pool_[t.loser].hash, current_samples_, pool_generation_, std::nullopt};
  if (exact_mode() && config_.memetic.crossover_rate > 0 && rng.chance(config_.memetic.crossover_rate)) {
    const Member& m = pool_[rng.below(pool_.size())];
    if (m.hash != b.parent.hash && same_shape(m.program, b.parent.program)) b.mate = m.program;
  }
  ++breeding_;
  lk.unlock();
  Offspring o;
  try {
    o = breed(b, rng);
  } catch (...) {
    lk.lock();
    --breeding_;
    throw;
  }
  lk.lock();
  --breeding_;
  commit_offspring_locked(b, std::move(o));
}

Run::Offspring Run::breed(const Breeding& b, Rng& rng) const {
  Offspring out;
  RunCounters& local = out.counters;
  const MemeticConfig& mc = config_.memetic;
  // A parent already at a local optimum costs only cache lookups here (its neighbours'
  // scores are known), then breeds as usual.
  if (exact_mode() && mc.local_search_rate > 0 && rng.chance(mc.local_search_rate))
    if (std::optional<Member> child = local_search_child(b.parent, out)) {
      out.child = std::move(child);
      return out;
    }
  std::optional<Member> fallback;
  for (int attempt = 0; attempt < config_.max_child_attempts && !out.child; ++attempt) {
    const bool fresh = rng.chance(config_.fresh_rate);
    std::optional<mixer::Program> crossed;
    if (!fresh && attempt == 0 && b.mate) crossed = crossover(b.parent.program, *b.mate, rng);
    mixer::Program c = fresh     ? fresh_program(rng)
                       : crossed ? std::move(*crossed)
                                 : mutate(b.parent.program, shape_, config_.mutation, rng).program;
    const std::uint64_t h = c.hash();
    if (pool_contains(h)) continue;
    ++local.scored;
    if (fresh) {
      Member m{c, h, full_score(c, b.samples, &local.samples), 0};
      // A fresh program is tuned before it competes: its shape may beat the pool's, its
      // random constants seldom do, so a pool locked in a poor shape would never take it.
      if (exact_mode() && mc.local_search_rate > 0)
        if (std::optional<Member> tuned = local_search_child(m, out)) m = std::move(*tuned);
      out.child = std::move(m);
      break;
    }
    ChildScore cs = score_child(c, b.parent.estimate.rank(), b.samples);
    local.samples += cs.samples;
    Member candidate{c, h, cs.estimate, 0};
    // With an objective, a child that passes the avalanche stages gets its terms and
    // meets the same threshold with its total (with the avalanche part's confidence
    // bound): the reject keeps selecting among the attempts, as it does without one.
    if (!cs.rejected && config_.objective.enabled()) {
      with_objective(candidate);
      const Estimate& e = candidate.estimate;
      const double z = e.exact ? 0 : avalanche::normal_quantile(config_.early_reject.confidence);
      if (config_.early_reject.enabled && e.chi2 - z * e.stderr_ + e.penalty > reject_threshold(b.parent.estimate.rank()))
        cs.rejected = true;
    }
    if (!cs.rejected) {
      out.child = std::move(candidate);
    } else {
      ++local.early_rejects;
      local.samples_saved += cs.saved;
      if (!fallback || candidate.estimate.rank() < fallback->estimate.rank()) fallback = std::move(candidate);
    }
  }
  if (!out.child && fallback) {
    // One rejected on its total was fully scored already; one rejected by the avalanche
    // stages is scored in full now.
    if (!fallback->objective) fallback->estimate = full_score(fallback->program, b.samples, &local.samples);
    out.child = fallback;
  }
  // The objective's terms only for the child that enters the pool (not for the rejected).
  if (out.child && !out.child->objective) with_objective(*out.child);
  return out;
}

// First-improvement local search from the parent, exact scores (cached), at most
// memetic.max_moves moves: its end point is the child. Nullopt when the parent has no
// better neighbour or the run is stopping.
std::optional<Member> Run::local_search_child(const Member& parent, Offspring& out) const {
  LocalSearchOptions o;
  // No sampled stages: at exact widths a neighbour's exact score is the comparison.
  o.first_samples = o.max_samples = std::uint64_t{1} << parent.program.width();
  o.seed = mix_seed(config_.seed, 0x6d656d65ull);
  LocalSearch ls(parent.program, parent.estimate.chi2, o);
  int moves = 0;
  LocalSearchHooks hooks;
  hooks.exact = [&](const mixer::Program& q) { return full_score(q, 0, &out.counters.samples); };
  hooks.keep_going = [&] {
    std::lock_guard lk(mu_);
    return !stop_;
  };
  hooks.improved = [&](const mixer::Program&, const Estimate&) { return ++moves < config_.memetic.max_moves; };
  ls.run(evaluator_, hooks);
  out.counters.local_neighbours += ls.counters().neighbours;
  out.counters.local_improvements += ls.counters().improvements;
  if (ls.counters().improvements == 0) return std::nullopt;
  Member child{ls.centre(), ls.centre().hash(), Estimate{ls.centre_chi2(), 0, std::uint64_t{1} << parent.program.width(), true}, 0};
  with_objective(child);
  ++out.counters.scored;
  return child;
}

mixer::Program Run::fresh_program(Rng& rng) const {
  const double rate = config_.memetic.species_rate;
  if (exact_mode() && rate > 0 && shape_.kind_sequence.empty() && rng.chance(rate)) {
    std::vector<mixer::StepKind> kinds;
    {
      std::lock_guard lk(mu_);
      const std::vector<std::size_t> top = pool_.top(8);
      if (!top.empty())
        for (const mixer::Step& s : pool_[top[rng.below(top.size())]].program.steps()) kinds.push_back(s.kind);
    }
    if (!kinds.empty()) {
      ProgramShape species = shape_;
      species.kind_sequence = std::move(kinds);
      return random_program(species, rng);
    }
  }
  return random_program(shape_, rng);
}

void Run::commit_offspring_locked(const Breeding& b, Offspring o) {
  counters_.local_neighbours += o.counters.local_neighbours;
  counters_.local_improvements += o.counters.local_improvements;
  counters_.scored += o.counters.scored;
  counters_.early_rejects += o.counters.early_rejects;
  counters_.samples += o.counters.samples;
  counters_.samples_saved += o.counters.samples_saved;
  ++counters_.tournaments;
  std::optional<std::uint64_t> out = b.loser;
  // One shape may hold at most memetic.shape_share of the pool: a child of a shape that has
  // its share replaces the worst member of its own shape (or is dropped, and the loser
  // stays), not a loser of another shape, so one lineage cannot take the whole pool and
  // lock it into its shape.
  if (o.child && exact_mode() && shape_.kind_sequence.empty() && config_.memetic.shape_share < 1) {
    std::size_t same = 0;
    std::optional<std::size_t> worst;
    bool loser_same = false;
    for (std::size_t i = 0; i < pool_.size(); ++i) {
      if (!same_shape(pool_[i].program, o.child->program)) continue;
      ++same;
      loser_same = loser_same || pool_[i].hash == b.loser;
      if (!worst || pool_[i].estimate.rank() > pool_[*worst].estimate.rank()) worst = i;
    }
    if (!loser_same && double(same) >= config_.memetic.shape_share * double(pool_target_)) {
      if (o.child->estimate.rank() < pool_[*worst].estimate.rank()) {
        out = pool_[*worst].hash;
      } else {
        o.child.reset();
        out.reset();
      }
    }
  }
  if (!out) {
    cv_.notify_all();
    return;
  }
  ++counters_.removals;
  if (auto i = pool_.find(*out)) pool_.remove_at(*i);
  // Another worker may have removed the same loser meanwhile: never grow past the target.
  // A child bred before a full restart would bring back the pool the restart replaced.
  if (o.child && b.generation == pool_generation_ && pool_.size() + pending_ < pool_target_) {
    o.child->born = counters_.tournaments;
    if (pool_.insert(*o.child) && exact_mode()) consider_best_locked(*o.child);
  }
  cv_.notify_all();  // the pool changed: a worker may wait for two members
}

std::vector<mixer::Program> Run::emigrants(std::size_t k) const {
  std::lock_guard lk(mu_);
  std::vector<mixer::Program> out;
  for (std::size_t i : pool_.top(k)) out.push_back(pool_[i].program);
  return out;
}

std::size_t Run::immigrate(const std::vector<mixer::Program>& programs) {
  std::size_t accepted = 0;
  for (const mixer::Program& p : programs) {
    if (p.width() != config_.width || static_cast<int>(p.steps().size()) > config_.max_steps ||
        static_cast<int>(p.steps().size()) < config_.min_steps)
      continue;
    const std::uint64_t h = p.hash();
    std::uint64_t samples = 0;
    {
      std::lock_guard lk(mu_);
      if (pool_.contains(h) || pool_.size() < 2) continue;
      samples = current_samples_;
    }
    std::uint64_t used = 0;
    Member m{p, h, full_score(p, samples, &used), 0};  // unlocked: the expensive part
    with_objective(m);
    const Estimate& e = m.estimate;
    std::unique_lock lk(mu_);
    counters_.samples += used;
    ++counters_.scored;
    if (pool_.contains(h) || pool_.size() < 2) continue;
    const std::size_t j = migration_rng_.below(pool_.size());
    const double member = pool_[j].estimate.rank();
    if (!(e.rank() < member) ||
        !remove_loser(member, e.rank(), config_.temperature, config_.width, migration_rng_))
      continue;
    pool_.remove_at(j);
    m.born = counters_.tournaments;
    if (pool_.insert(m)) {
      ++accepted;
      if (exact_mode()) consider_best_locked(m);
    }
    announce(lk);
  }
  return accepted;
}

std::optional<std::size_t> Run::climb_wanted_locked() const {
  for (std::size_t i = 0; i < climbs_.size(); ++i)
    if (!climbs_[i].status.done && !climbs_[i].busy) return i;
  return std::nullopt;
}

bool Run::climbs_pending_locked() const {
  return std::any_of(climbs_.begin(), climbs_.end(), [](const SeedClimb& c) { return !c.status.done; });
}

// On the run's threads and its cancel flag, as the ranker's exact scores (a requested stop
// drops the score in flight). Small widths: the run's own exact score, cached.
double Run::climb_exact(const mixer::Program& p) const {
  if (exact_mode()) return full_score(p, 0, nullptr).chi2;
  double chi2 = 0;
  tbb::task_arena arena(static_cast<int>(config_.worker_threads()));
  arena.execute([&] { chi2 = avalanche::score(evaluator_.counts_exact(p, &exact_cancel_)).chi2; });
  return chi2;
}

double Run::climb_check(const mixer::Program& p) const {
  double chi2 = 0;
  tbb::task_arena arena(static_cast<int>(config_.worker_threads()));
  arena.execute([&] { chi2 = avalanche::score(avalanche::interpreted_counts_exact(p, &exact_cancel_)).chi2; });
  return chi2;
}

void Run::enter_pool_locked(Member m) {
  if (pool_.contains(m.hash)) return;
  if (!pool_.empty() && pool_.size() + pending_ >= pool_target_) {
    std::size_t worst = 0;
    for (std::size_t i = 1; i < pool_.size(); ++i)
      if (pool_[i].estimate.rank() > pool_[worst].estimate.rank()) worst = i;
    if (!(m.estimate.rank() < pool_[worst].estimate.rank())) return;
    pool_.remove_at(worst);
  }
  pool_.insert(std::move(m));
  cv_.notify_all();
}

// The seed's exact score first (it enters the pool), then one program of its climb per
// step, so that a one-thread run stays reproducible: the steps fall where they fell.
void Run::climb_step(std::unique_lock<std::mutex>& lk) {
  SeedClimb& sc = climbs_[*climb_wanted_locked()];
  sc.busy = true;
  lk.unlock();
  std::optional<Member> enter;
  std::uint64_t scores = 0;
  bool moved = false;
  try {
    if (!sc.climb) {
      const mixer::Program& seed = sc.status.start;
      const double chi2 = climb_exact(seed);
      sc.climb.emplace(seed, chi2);
      enter = Member{seed, seed.hash(), Estimate{chi2, 0, std::uint64_t{1} << seed.width(), true}, 0};
      scores = 1;
    } else if (const std::optional<ClimbStep> s =
                   sc.climb->step([this](const mixer::Program& q) { return climb_exact(q); },
                                  [this](const mixer::Program& q) { return climb_check(q); })) {
      scores = 1;
      moved = s->moved;
      if (s->moved)
        enter = Member{s->program, s->program.hash(),
                       Estimate{s->chi2, 0, std::uint64_t{1} << s->program.width(), true}, 0};
    }
  } catch (const avalanche::EvaluationCancelled&) {
    lk.lock();
    sc.busy = false;
    return;  // a requested stop: the climb goes on from here at the next start
  } catch (...) {
    lk.lock();
    sc.busy = false;
    throw;
  }
  if (enter) with_objective(*enter);
  lk.lock();
  sc.busy = false;
  const Climb& c = *sc.climb;
  ClimbStatus& st = sc.status;
  if (!st.centre) sc.scored_before += 1;  // the seed's own score
  st.centre = c.centre();
  st.chi2_exact = c.centre_chi2();
  st.moves = sc.moves_before + c.moves();
  st.scored = sc.scored_before + c.scored();
  st.pairs = c.in_pairs();
  st.position = c.position();
  st.neighbourhood = c.neighbourhood_size();
  st.done = c.done();
  if (st.done) sc.climb.reset();
  counters_.exact_scored += scores;
  if (moved) ++counters_.local_improvements;
  if (enter) {
    enter->born = counters_.tournaments;
    enter_pool_locked(*enter);
    consider_best_locked(*enter);
  }
  cv_.notify_all();
}

}  // namespace mixforge::evolver
