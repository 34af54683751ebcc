// Exact scores must equal the independent reference values (tests/data/mixers.json; see
// tests/data/README.md). Each test counts the functions it checked, so a filter that
// silently skips entries (or a shortened file) fails.
#include <gtest/gtest.h>

#include "avalanche/evaluator.hpp"
#include "mixer/text_form.hpp"
#include "support/reference_functions.hpp"

using namespace mixforge;
using mixforge::test::reference_mixers;

TEST(ReferenceScores, ReferenceInterpreterMatchesEveryNarrowFunction) {
  const Evaluator ev(nullptr);
  int checked = 0;
  for (const auto& r : reference_mixers()) {
    if (r.width > 16) continue;
    const Program p = parse_program(r.text, {.width = r.width});
    const Score s = ev.exact(p);
    EXPECT_NEAR(s.chi2, r.chi2, 1e-9 * r.chi2) << r.name;
    EXPECT_NEAR(s.bias, r.bias, 1e-9 * r.bias) << r.name;
    EXPECT_TRUE(s.exact);
    EXPECT_EQ(s.chi2_corrected, s.chi2);
    EXPECT_EQ(s.samples, std::uint64_t{1} << p.width());
    ++checked;
  }
  // writeup-8-a/b/c, writeup-7, hp16-xm2, hp16-xm3, mixed-3, mixed-5, mixed-12
  EXPECT_EQ(checked, 9);
}

TEST(ReferenceScores, JitBackEndMatchesEveryFunctionUpTo20Bits) {
  const auto ev = Evaluator::with_own_engine();
  if (!ev->uses_jit()) GTEST_SKIP() << "built without the JIT";
  int checked = 0;
  for (const auto& r : reference_mixers()) {
    if (r.width > 20) continue;
    const Program p = parse_program(r.text, {.width = r.width});
    EXPECT_NEAR(ev->exact(p).chi2, r.chi2, 1e-9 * r.chi2) << r.name;
    ++checked;
  }
  EXPECT_EQ(checked, 10);  // the nine above and mixed-20
}

TEST(ReferenceScores, JitExactLowbias32MatchesReference) {
  const auto ev = Evaluator::with_own_engine();
  if (!ev->uses_jit()) GTEST_SKIP() << "built without the JIT";
  int checked = 0;
  for (const auto& r : reference_mixers()) {
    if (r.name != "lowbias32") continue;
    const Program p = parse_program(r.text);
    EXPECT_EQ(p, mixforge::test::lowbias32());
    const Score s = ev->exact(p);
    EXPECT_NEAR(s.chi2, 1.541831498e-05, 1e-9 * 1.541831498e-05);
    EXPECT_NEAR(s.bias, r.bias, 1e-9 * r.bias);
    ++checked;
  }
  EXPECT_EQ(checked, 1);
}
