// tests/data/records.json's 32-bit functions that pass the RRC cap 2^24 (triple32 and
// mixforge's 3-round function): 2-3 minutes each on 2 cores, hence the long label.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>

#include "avalanche/evaluator.hpp"
#include "avalanche/rrc/rrc_battery.hpp"
#include "mixer/text_form.hpp"

namespace mixforge::avalanche::rrc {

TEST(RrcRecordsLong, DeepThirtyTwoBitRecordsPassTheCap) {
  std::ifstream in(std::string(MIXFORGE_SOURCE_DIR) + "/tests/data/records.json");
  const nlohmann::json j = nlohmann::json::parse(in);
  const auto ev = Evaluator::with_own_engine();
  int checked = 0;
  for (const auto& e : j) {
    if (!e.at("rrc_passed_cap").get<bool>() || e.at("width").get<int>() <= 16) continue;
    const mixer::Program p = mixer::parse_program(e.at("text").get<std::string>(), {.width = e.at("width").get<int>()});
    const RrcReport r = rrc_battery(ev->batch_function(p), p.width(), {10, e.at("rrc_cap_log2").get<int>()});
    EXPECT_TRUE(r.passed_cap) << e.at("name");
    EXPECT_EQ(r.depth_log2, e.at("rrc_depth_log2").get<int>()) << e.at("name");
    ++checked;
  }
  EXPECT_EQ(checked, 2);
}

}  // namespace mixforge::avalanche::rrc
