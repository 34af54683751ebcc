// Exact scores must equal the independent reference values (shared/reference/mixers.json).
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "avalanche/evaluator.hpp"
#include "avalanche/reference_counts.hpp"
#include "mixer/text_form.hpp"

using namespace mixforge;

namespace {
nlohmann::json references() {
  std::ifstream in(std::string(MIXFORGE_SHARED_DIR) + "/reference/mixers.json");
  if (!in) throw std::runtime_error("shared/reference/mixers.json missing");
  return nlohmann::json::parse(in);
}
}  // namespace

TEST(ReferenceScores, ReferenceInterpreterMatchesEveryNarrowFunction) {
  const Evaluator ev(nullptr);
  int checked = 0;
  for (const auto& r : references()) {
    if (r["width"].get<int>() > 16) continue;
    const Program p = parse_program(r["text"].get<std::string>(), {.width = r["width"].get<int>()});
    const Score s = ev.exact(p);
    EXPECT_NEAR(s.chi2, r["chi2"].get<double>(), 1e-9 * r["chi2"].get<double>()) << r["name"];
    EXPECT_NEAR(s.bias, r["bias"].get<double>(), 1e-9 * r["bias"].get<double>()) << r["name"];
    EXPECT_TRUE(s.exact);
    EXPECT_EQ(s.chi2_corrected, s.chi2);
    EXPECT_EQ(s.samples, std::uint64_t{1} << p.width());
    ++checked;
  }
  EXPECT_GE(checked, 8);
}

TEST(ReferenceScores, JitBackEndMatchesEveryFunctionUpTo20Bits) {
  const auto ev = Evaluator::with_own_engine();
  if (!ev->uses_jit()) GTEST_SKIP() << "built without the JIT";
  for (const auto& r : references()) {
    if (r["width"].get<int>() > 20) continue;
    const Program p = parse_program(r["text"].get<std::string>(), {.width = r["width"].get<int>()});
    EXPECT_NEAR(ev->exact(p).chi2, r["chi2"].get<double>(), 1e-9 * r["chi2"].get<double>()) << r["name"];
  }
}

TEST(ReferenceScores, JitExactLowbias32MatchesReference) {
  const auto ev = Evaluator::with_own_engine();
  if (!ev->uses_jit()) GTEST_SKIP() << "built without the JIT";
  for (const auto& r : references()) {
    if (r["name"] != "lowbias32") continue;
    const Program p = parse_program(r["text"].get<std::string>());
    const Score s = ev->exact(p);
    EXPECT_NEAR(s.chi2, 1.541831498e-05, 1e-9 * 1.541831498e-05);
    EXPECT_NEAR(s.bias, r["bias"].get<double>(), 1e-9 * r["bias"].get<double>());
    return;
  }
  FAIL() << "lowbias32 not in the reference file";
}
