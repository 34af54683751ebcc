#include "evolver/search/restart.hpp"

#include <algorithm>
#include <cmath>

#include "avalanche/stats/chi_square.hpp"

namespace mixforge::evolver {

bool is_progress(std::optional<double> last_progress, double rank, double min_gain) {
  if (!last_progress) return true;
  if (!(rank < *last_progress)) return false;
  return rank <= *last_progress * (1 - min_gain);
}

void StagnationClock::start_pool(double now) { state_ = {now, now, now, std::nullopt}; }

void StagnationClock::observe(double rank, double now) {
  if (!is_progress(state_.progress_rank, rank, config_.min_gain)) return;
  state_.progress_rank = rank;
  state_.last_progress = now;
  state_.wait_from = now;
}

bool StagnationClock::due(double now) const {
  if (!config_.enabled()) return false;
  const double wait = std::max(config_.window(), config_.patience * (state_.last_progress - state_.pool_start));
  return now - state_.wait_from >= wait;
}

RestartConfig trap_restart(const RestartConfig& restart) {
  RestartConfig t;
  t.stagnation_tournaments = restart.trap_tournaments;
  t.min_gain = 0.5;
  t.patience = 1;
  t.fraction = 1;
  t.keep_leaders = false;
  t.trap_tournaments = 0;
  return t;
}

bool is_coarse(const RunConfig& config, std::uint64_t current_samples) {
  const Precision& p = config.precision;
  return current_samples > 0 && current_samples == p.initial_samples && p.initial_samples < p.max_samples;
}

double coarse_level(const RunConfig& config, std::uint64_t samples) {
  return config.precision.noise_ratio * avalanche::noise_floor(config.width, samples);
}

double trap_clock_rank(const RunConfig& config, std::uint64_t current_samples, double best) {
  const double level = coarse_level(config, current_samples);
  return best >= 2 * level ? best : 2 * std::max(0.0, best - level);
}

std::vector<std::uint64_t> restart_victims(const Pool& pool, const RestartConfig& restart, int leaders) {
  const std::size_t n = pool.size();
  std::size_t keep = static_cast<std::size_t>(std::lround(double(n) * (1 - restart.fraction)));
  if (restart.keep_leaders) keep = std::max(keep, std::min(n, static_cast<std::size_t>(std::max(leaders, 2))));
  std::vector<std::uint64_t> out;
  const std::vector<std::size_t> order = pool.top(n);
  for (std::size_t k = std::min(keep, n); k < order.size(); ++k) out.push_back(pool[order[k]].hash);
  return out;
}

}  // namespace mixforge::evolver
