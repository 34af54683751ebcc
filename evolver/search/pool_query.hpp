#pragma once
// Every filter, order and page of pool listings, in one place: the run manager applies it
// to a live pool in memory (matches, before), the store turns the same fields into SQL.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "mixer/program.hpp"

namespace mixforge::evolver {

struct Member;

// The kinds a program uses, one bit per StepKind (bit k: kind k). Stored with each pool
// row so kind filters are SQL.
std::uint32_t kind_mask(const mixer::Program& program);
std::uint32_t kind_mask(const std::vector<mixer::StepKind>& kinds);

struct PoolQuery {
  enum class Order { chi2, born, steps };
  std::size_t offset = 0;
  std::size_t limit = 100;
  Order order = Order::chi2;  // chi2: by Estimate::rank() (what tournaments compare)
  bool descending = false;    // ties are always broken by the canonical hash, ascending
  std::optional<int> min_steps;               // inclusive
  std::optional<int> max_steps;               // inclusive
  std::optional<std::vector<mixer::StepKind>> kinds;  // only programs whose every step is of these kinds
  std::optional<mixer::StepKind> uses_kind;           // only programs with a step of this kind
  std::optional<double> max_chi2;
  bool exact_only = false;

  // Exactly n steps.
  void only_steps(int n) { min_steps = max_steps = n; }
  bool matches(const Member& m) const;
  // True when a comes before b in the query's order.
  bool before(const Member& a, const Member& b) const;
};

}  // namespace mixforge::evolver
