// The execution cases themselves: they cover every step kind at several widths, carry
// >= 2^20 inputs, and compare() really reports differences.
#include <gtest/gtest.h>

#include <set>

#include "cases.hpp"
#include "mixer/interpreter.hpp"

namespace mixforge::test {
namespace {

TEST(ExecutionCases, CoverEveryStepKindAndSeveralWidths) {
  std::set<mixer::StepKind> kinds;
  std::set<int> widths;
  bool vec4 = false, range = false, inverse = false;
  for (const Case& c : execution_cases(true, 64)) {
    for (const auto& p : c.request.programs) {
      widths.insert(p.program.width());
      for (const mixer::Step& s : p.program.steps()) kinds.insert(s.kind);
    }
    vec4 = vec4 || c.kind == CaseKind::vec4;
    range = range || c.kind == CaseKind::range;
    inverse = inverse || c.request.inverse;
  }
  EXPECT_EQ(kinds.size(), static_cast<std::size_t>(mixer::step_kind_count));
  for (int w : {1, 7, 13, 24, 32, 33, 48, 64}) EXPECT_TRUE(widths.count(w)) << w;
  EXPECT_TRUE(vec4 && range && inverse);
  EXPECT_GE(default_count, std::size_t{1} << 20);
}

TEST(ExecutionCases, CompareReportsTheFirstDifferences) {
  const auto cases = execution_cases(true, 256);
  for (const Case& c : cases) {
    EXPECT_EQ(compare(c, c.expected), "") << c.label;
    std::vector<std::uint32_t> wrong = c.expected;
    wrong[wrong.size() - 1] ^= 1u << 31;
    const std::string msg = compare(c, wrong);
    EXPECT_NE(msg.find("1 of 256 items differ"), std::string::npos) << c.label << ": " << msg;
  }
}

}  // namespace
}  // namespace mixforge::test
