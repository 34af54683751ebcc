#pragma once
// Small run configurations the evolver's tests share: fast on the reference interpreter,
// one worker (reproducible), budgets in tournaments.
#include <cstdint>

#include "evolver/search/run_config.hpp"

namespace mixforge::evolver_test {

using evolver::RunConfig;

// 8 bits: every score exact and inline.
inline RunConfig small_exact_config(std::uint64_t tournaments) {
  RunConfig c;
  c.width = 8;
  c.max_steps = 5;
  c.pool_size = 100;
  c.seed = 42;
  c.threads = 1;
  c.precision.leader_interval = 500;
  c.budget.tournaments = tournaments;
  return c;
}

// Sampled scoring with early reject and leader ranking (exact at 12 bits is cheap).
inline RunConfig small_sampled_config(std::uint64_t tournaments) {
  RunConfig c;
  c.width = 12;
  c.max_steps = 4;
  c.pool_size = 60;
  c.seed = 7;
  c.threads = 1;
  c.precision.exact_max_width = 0;
  c.precision.initial_samples = 256;
  c.precision.max_samples = 1024;
  c.precision.leaders = 3;
  c.precision.leader_interval = 150;
  c.early_reject.first_samples = 64;
  c.budget.tournaments = tournaments;
  return c;
}

}  // namespace mixforge::evolver_test
