// tests/data/records.json's 32-bit functions that pass the RRC cap 2^24 (triple32 and
// mixforge's 3-round function): 2-3 minutes each on 2 cores, hence the long label.
#include <gtest/gtest.h>

#include "avalanche/evaluator.hpp"
#include "avalanche/quality/rrc/rrc_battery.hpp"
#include "mixer/text_form.hpp"
#include "support/reference_functions.hpp"

namespace mixforge::avalanche::rrc {

TEST(RrcRecordsLong, DeepThirtyTwoBitRecordsPassTheCap) {
  const auto ev = Evaluator::with_own_engine();
  int checked = 0;
  for (const auto& e : test::reference_mixers("records.json")) {
    if (!e.rrc_passed_cap || e.width <= 16) continue;
    const mixer::Program p = mixer::parse_program(e.text, {.width = e.width});
    const RrcReport r = rrc_battery(ev->batch_function(p), p.width(), {10, e.rrc_cap_log2});
    EXPECT_TRUE(r.passed_cap) << e.name;
    EXPECT_EQ(r.depth_log2, e.rrc_depth_log2) << e.name;
    ++checked;
  }
  EXPECT_EQ(checked, 2);
}

}  // namespace mixforge::avalanche::rrc
