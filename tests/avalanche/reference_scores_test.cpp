// Exact scores must equal the independent reference values (tests/data/mixers.json; see
// tests/data/README.md). Each test counts the functions it checked, so a filter that
// silently skips entries (or a shortened file) fails.
#include <map>
#include <string>

#include <gtest/gtest.h>

#include "avalanche/stats/chi_square.hpp"
#include "avalanche/evaluator.hpp"
#include "avalanche/count/jit_counts.hpp"
#include "jit/engine.hpp"
#include "mixer/text_form.hpp"
#include "support/reference_functions.hpp"

using namespace mixforge;
using mixforge::test::reference_mixers;

TEST(ReferenceScores, ReferenceInterpreterMatchesEveryNarrowFunction) {
  const avalanche::Evaluator ev(nullptr);
  int checked = 0;
  for (const auto& r : reference_mixers()) {
    if (r.width > 16) continue;
    const mixer::Program p = mixer::parse_program(r.text, {.width = r.width});
    const avalanche::Score s = ev.exact(p);
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

// The JIT's tile kernel itself (Evaluator::exact takes the interpreter at these widths).
TEST(ReferenceScores, JitBackEndMatchesEveryFunctionUpTo20Bits) {
  jit::Engine engine;
  int checked = 0;
  for (const auto& r : reference_mixers()) {
    if (r.width > 20) continue;
    const mixer::Program p = mixer::parse_program(r.text, {.width = r.width});
    EXPECT_NEAR(avalanche::chi_square(avalanche::jit_counts_exact(engine, p)), r.chi2, 1e-9 * r.chi2) << r.name;
    EXPECT_NEAR(avalanche::Evaluator::with_own_engine()->exact(p).chi2, r.chi2, 1e-9 * r.chi2) << r.name;
    ++checked;
  }
  EXPECT_EQ(checked, 10);  // the nine above and mixed-20
}

TEST(ReferenceScores, JitExactLowbias32MatchesReference) {
  const auto ev = avalanche::Evaluator::with_own_engine();
  if (!ev->uses_jit()) GTEST_SKIP() << "built without the JIT";
  int checked = 0;
  for (const auto& r : reference_mixers()) {
    if (r.name != "lowbias32") continue;
    const mixer::Program p = mixer::parse_program(r.text);
    EXPECT_EQ(p, mixforge::test::lowbias32());
    const avalanche::Score s = ev->exact(p);
    EXPECT_NEAR(s.chi2, 1.541831498e-05, 1e-9 * 1.541831498e-05);
    EXPECT_NEAR(s.bias, r.bias, 1e-9 * r.bias);
    ++checked;
  }
  EXPECT_EQ(checked, 1);
}

// The 16-bit functions of tests/data/records.json (the published ones and the one mixforge
// found), each recomputed by the CTest records_independent_check in plain Python too.
TEST(ReferenceScores, TheSixteenBitRecordsScoreAsStated) {
  const avalanche::Evaluator ev(nullptr);
  int checked = 0;
  for (const auto& r : reference_mixers("records.json")) {
    if (r.width != 16) continue;
    const mixer::Program p = mixer::parse_program(r.text, {.width = r.width});
    EXPECT_NEAR(ev.exact(p).chi2, r.chi2, 1e-9 * r.chi2) << r.name;
    EXPECT_NEAR(ev.exact(p).bias, r.bias, 1e-9 * r.bias) << r.name;
    ++checked;
  }
  EXPECT_EQ(checked, 4);
  // The one mixforge found (the lowest avalanche chi2 we know of for its shape) is below the
  // published one of its shape: a claim about avalanche chi2 alone.
  double published = 0, found = 0;
  for (const auto& r : reference_mixers("records.json")) {
    if (r.name == "published-16-3round") published = r.chi2;
    if (r.name == "mixforge-16-3round") found = r.chi2;
  }
  EXPECT_LT(found, published);
}

// The 32-bit functions of tests/data/records.json. 2 rounds: the best published one,
// [16 21f0aaad 15 735a2d97 15] (hash-prospector issue 19, comment of 2022-05-07; the splitmix32
// finaliser), and an earlier one of the same thread one bit away, [16 21f0aaad 15 f35a2d97 15],
// above it (mixforge re-found the best from the earlier one: a rediscovery, not a record).
// 3 rounds: triple32 and the one mixforge found three bit flips away, lower (the lowest
// avalanche chi2 we know of). JIT exact scores here; the CTest records32_independent_check
// recomputes them by a plain C loop (label long).
TEST(ReferenceScores, TheThirtyTwoBitRecordsScoreAsStated) {
  const auto ev = avalanche::Evaluator::with_own_engine();
  if (!ev->uses_jit()) GTEST_SKIP() << "built without the JIT";
  std::map<std::string, double> scored;
  for (const auto& r : reference_mixers("records.json")) {
    if (r.width != 32) continue;
    const avalanche::Score s = ev->exact(mixer::parse_program(r.text, {.width = r.width}));
    EXPECT_NEAR(s.chi2, r.chi2, 1e-9 * r.chi2) << r.name;
    EXPECT_NEAR(s.bias, r.bias, 1e-9 * r.bias) << r.name;
    scored[r.name] = s.chi2;
  }
  ASSERT_EQ(scored.size(), 4u);
  ASSERT_EQ(scored.count("published-32-2round-best"), 1u);
  ASSERT_EQ(scored.count("published-32-2round-earlier"), 1u);
  ASSERT_EQ(scored.count("published-32-3round"), 1u);
  ASSERT_EQ(scored.count("mixforge-32-3round"), 1u);
  // The published values, as stated (issue 51).
  EXPECT_NEAR(scored["published-32-2round-best"], 5.866609323e-6, 1e-15);
  EXPECT_NEAR(scored["published-32-2round-earlier"], 5.9001e-6, 1e-10);
  EXPECT_NEAR(scored["published-32-3round"], 2.2340e-7, 1e-11);
  // The earlier published 2-round function is above the best published one.
  EXPECT_LT(scored["published-32-2round-best"], scored["published-32-2round-earlier"]);
  EXPECT_LT(scored["mixforge-32-3round"], scored["published-32-3round"]);
}
