// Exact JIT counts of every 32-bit reference function (a second or two each).
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "avalanche/chi_square.hpp"
#include "avalanche/jit_counts.hpp"
#include "jit/engine.hpp"
#include "mixer/text_form.hpp"

namespace mixforge {
namespace {

TEST(JitExactCountsLong, Every32BitReferenceFunction) {
  std::ifstream in(std::string(MIXFORGE_SHARED_DIR) + "/reference/mixers.json");
  ASSERT_TRUE(in) << "reference/mixers.json not found";
  jit::Engine engine;
  int checked = 0;
  for (const auto& m : nlohmann::json::parse(in)) {
    if (m["width"].get<int>() != 32) continue;
    const Program p = parse_program(m["text"].get<std::string>(), {.width = 32});
    const double got = chi_square(jit_counts_exact(engine, p));
    const double want = m["chi2"].get<double>();
    EXPECT_NEAR(got, want, 1e-9 * want) << m["name"];
    ++checked;
  }
  EXPECT_GE(checked, 9);
}

}  // namespace
}  // namespace mixforge
