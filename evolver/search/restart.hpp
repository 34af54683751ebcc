#pragma once
// Restarts against stagnation (RestartConfig): when the pool counts as stagnant, and which
// members a restart removes. No locks, no clocks of their own: the run feeds them its
// tournaments or elapsed seconds and applies what they decide.
#include <cstdint>
#include <optional>
#include <vector>

#include "evolver/search/pool.hpp"
#include "evolver/search/run_config.hpp"

namespace mixforge::evolver {

// Whether a best of rank `rank` is progress against the rank of the last one that was
// (none yet: it is). min_gain 0: any improvement; else the rank must fall by at least that
// share (0.5: halve). Small steps inside a trap (a pool locked into a poor shape whose
// constants are still being tuned) then do not hold a restart off.
bool is_progress(std::optional<double> last_progress, double rank, double min_gain);

// What a stagnation clock has seen, in its own time unit: kept in checkpoints, so a resumed
// run goes on waiting where it stopped (a run resumed more often than its window would
// otherwise never restart).
struct ClockState {
  double pool_start = 0;
  double last_progress = 0;
  double wait_from = 0;  // the last progress, or a partial restart since
  std::optional<double> progress_rank;
  friend bool operator==(const ClockState&, const ClockState&) = default;
};

// The stagnation clock of one pool, fed the pool's best rank at each leader round. Its
// time is the run's tournaments or elapsed seconds (RestartConfig::window says which).
// Due when the pool has made no progress for max(the window, patience x the time it took
// from its start to its last progress): a pool that got stuck quickly is restarted
// quickly; one that progressed for minutes is given as long again.
class StagnationClock {
 public:
  explicit StagnationClock(const RestartConfig& config) : config_(config) {}
  // A new pool (a run's start or resume, or a restart that replaced every member).
  void start_pool(double now);
  // The pool's best rank now.
  void observe(double rank, double now);
  bool due(double now) const;
  // A partial restart: the survivors carry the pool's history, the wait starts again.
  void partial_restart(double now) { state_.wait_from = now; }
  const ClockState& state() const { return state_; }
  // Goes on from a checkpoint's state (its time must be the run's, as it was saved).
  void restore(const ClockState& state) { state_ = state; }

 private:
  RestartConfig config_;
  ClockState state_;
};

// The rule trap restarts follow (RestartConfig::trap_tournaments; not enabled when that is
// 0): a full restart when the pool's best (as trap_clock_rank gives it) has not halved for
// max(trap_tournaments, the tournaments it took to its last halving).
// It is the setting that took seed 201 out of its trap (README, Islands); the run applies
// it only while the pool is coarse.
RestartConfig trap_restart(const RestartConfig& restart);

// Whether a sampled pool is coarse: the run still scores it at precision.initial_samples
// and could add more, because its best has never come below that count's noise floor.
bool is_coarse(const RunConfig& config, std::uint64_t current_samples);

// The level under which the pool's best makes the run add samples at `samples`:
// precision.noise_ratio x the noise floor n^2 / 2N. A coarse pool's best is never below it.
double coarse_level(const RunConfig& config, std::uint64_t samples);

// What the trap clock is fed for a coarse pool's best b, with L = coarse_level: b itself
// from 2L up, and 2 (b - L) below (the same at 2L, 0 at L). A coarse pool's best never goes
// below L, so within 2L it cannot halve: a healthy 17-bit pool closing in on L (seed 1: at
// 1.03 L after 8000 tournaments) was restarted. Below 2L, halving its distance to L is
// progress; from 2L up the rule is unchanged (README, Restarts).
double trap_clock_rank(const RunConfig& config, std::uint64_t current_samples, double best);

// The hashes of the members a restart removes: the worst `fraction` of the pool (rounded).
// The best max(leaders, 2) stay unless keep_leaders is false; a restart with fraction 1
// and keep_leaders false empties the pool.
std::vector<std::uint64_t> restart_victims(const Pool& pool, const RestartConfig& restart, int leaders);

}  // namespace mixforge::evolver
