#pragma once
// GoogleTest check that two avalanche counts are the same, integer for integer, naming
// the program on failure: every test of one counting path against another.
#include <gtest/gtest.h>

#include "avalanche/counts.hpp"
#include "mixer/program.hpp"

namespace mixforge::testing {

inline void expect_same_counts(const avalanche::AvalancheCounts& want, const avalanche::AvalancheCounts& got,
                               const mixer::Program& p) {
  SCOPED_TRACE(p.canonical());
  EXPECT_EQ(got.width, want.width);
  EXPECT_EQ(got.trials, want.trials);
  EXPECT_EQ(got.exact, want.exact);
  EXPECT_EQ(got.flips, want.flips);
}

}  // namespace mixforge::testing
