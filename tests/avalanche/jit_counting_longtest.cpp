// Exact JIT counts of every 32-bit reference function of tests/data/mixers.json (a second
// or two each).
#include <gtest/gtest.h>

#include "avalanche/stats/chi_square.hpp"
#include "avalanche/count/jit_counts.hpp"
#include "jit/engine.hpp"
#include "mixer/text_form.hpp"
#include "support/reference_functions.hpp"

namespace mixforge::avalanche {
namespace {

TEST(JitExactCountsLong, Every32BitReferenceFunction) {
  jit::Engine engine;
  int checked = 0;
  for (const auto& m : test::reference_mixers()) {
    if (m.width != 32) continue;
    const mixer::Program p = mixer::parse_program(m.text, {.width = 32});
    EXPECT_NEAR(avalanche::chi_square(avalanche::jit_counts_exact(engine, p)), m.chi2, 1e-9 * m.chi2) << m.name;
    ++checked;
  }
  EXPECT_EQ(checked, 9);  // every 32-bit entry of tests/data/mixers.json
}

}  // namespace
}  // namespace mixforge::avalanche
