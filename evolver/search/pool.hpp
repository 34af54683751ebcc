#pragma once
// The population: scored programs, never two with the same canonical id. A plain value
// container; the run guards it with its lock.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "evolver/search/objective.hpp"
#include "mixer/program.hpp"

namespace mixforge::evolver {

// What is known of a program's chi2.
struct Estimate {
  double chi2 = 0;            // exact, or the noise-corrected sampled value
  double stderr_ = 0;         // of chi2; 0 when exact
  std::uint64_t samples = 0;  // 2^n when exact
  bool exact = false;
  // The weighted terms of the run's objective (evolver/search/objective.hpp), 0 when it is off.
  // Kept when chi2 is re-estimated: the terms do not depend on the avalanche samples.
  double penalty = 0;
  // The value tournaments compare: exact chi2, or for a sampled one max(chi2, stderr),
  // so an estimate lost in its own noise does not look better than it can be shown to be;
  // plus the objective's penalty (x + 0.0 == x: no objective, no change).
  double rank() const { return chi2_rank() + penalty; }
  // The avalanche part of rank() alone.
  double chi2_rank() const { return exact ? chi2 : (chi2 > stderr_ ? chi2 : stderr_); }
  friend bool operator==(const Estimate&, const Estimate&) = default;
};

struct Member {
  mixer::Program program;
  std::uint64_t hash = 0;  // program.hash(), the canonical id
  Estimate estimate;
  std::uint64_t born = 0;  // tournament count when it entered
  // The objective's terms when the run has one (estimate.penalty is their weighted sum).
  std::optional<ObjectiveTerms> objective = std::nullopt;
  friend bool operator==(const Member&, const Member&) = default;
};

class Pool {
 public:
  std::size_t size() const { return members_.size(); }
  bool empty() const { return members_.empty(); }
  const Member& operator[](std::size_t i) const { return members_[i]; }
  Member& operator[](std::size_t i) { return members_[i]; }
  const std::vector<Member>& members() const { return members_; }

  bool contains(std::uint64_t hash) const { return index_.count(hash) != 0; }
  std::optional<std::size_t> find(std::uint64_t hash) const;
  // False (and nothing changes) when a member with the same canonical id is present.
  bool insert(Member member);
  // Moves the last member into slot i (order changes, deterministically).
  void remove_at(std::size_t i);
  void clear();
  // Indexes of the k best by rank (ties by hash), best first.
  std::vector<std::size_t> top(std::size_t k) const;
  // Index of the best by rank; the pool must not be empty.
  std::size_t best() const;

 private:
  std::vector<Member> members_;
  std::unordered_map<std::uint64_t, std::size_t> index_;
};

}  // namespace mixforge::evolver
