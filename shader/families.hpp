#pragma once
// Finding 4-lane families: the best compatible programs (same step kinds, the requested
// lane widths) in a pool or hall of fame, for vector export. Pure; the evolver / daemon
// feed it their programs and scores.
#include <array>
#include <cstddef>
#include <span>
#include <vector>

#include "mixer/program.hpp"

namespace mixforge::shader {

struct FamilyCandidate {
  mixer::Program program;
  double chi2 = 0;  // lower is better, >= 0: an exact score or a sampled one's upper rank
                    // (evolver's ScoredFunction::rank())
};

struct Family {
  std::vector<std::size_t> members;  // pool indices, one per requested lane, in lane order
  std::vector<mixer::StepKind> kinds;  // the shared step-kind sequence
  // chi2 / (best chi2 of that width in the whole pool), so lanes of different widths
  // compare on one scale: worst lane first, then the sum.
  double worst_ratio = 0;
  double sum_ratio = 0;
};

// Families for lane_widths (1..4 entries, each 1..32), best first, at most max_results.
// Lanes of one family are distinct programs. Throws std::invalid_argument on bad widths.
std::vector<Family> find_families(std::span<const FamilyCandidate> pool,
                                  std::span<const int> lane_widths, std::size_t max_results = 1);

}  // namespace mixforge::shader
