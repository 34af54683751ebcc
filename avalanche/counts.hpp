#pragma once
// Raw avalanche counts: how often output bit j flipped when input bit i was flipped.
#include <cstdint>
#include <stdexcept>
#include <vector>

namespace mixforge::avalanche {

// An exact count stopped by its cancel flag (e.g. the HTTP client went away).
struct EvaluationCancelled : std::runtime_error {
  EvaluationCancelled() : std::runtime_error("evaluation cancelled") {}
};

struct AvalancheCounts {
  int width = 0;
  // Trials per cell: N sampled inputs, or 2^n in exact mode (there each pair
  // {x, x ^ 2^i} is counted from both sides, so only 2^(n-1) trials are independent).
  std::uint64_t trials = 0;
  bool exact = false;
  std::vector<std::uint64_t> flips;  // width * width, flips[i * width + j]

  static AvalancheCounts zero(int width, bool exact = false) {
    AvalancheCounts c;
    c.width = width;
    c.exact = exact;
    c.flips.assign(static_cast<std::size_t>(width) * width, 0);
    return c;
  }
  AvalancheCounts& operator+=(const AvalancheCounts& o) {
    trials += o.trials;
    for (std::size_t k = 0; k < flips.size(); ++k) flips[k] += o.flips[k];
    return *this;
  }
};

}  // namespace mixforge::avalanche
