#include <gtest/gtest.h>

#include "shader/families.hpp"
#include "shader/vec4_packing.hpp"

namespace mixforge::shader {
namespace {

using K = mixer::StepKind;

mixer::Program xm(int w, std::uint64_t s1, std::uint64_t m1, std::uint64_t s2) {
  return mixer::Program(w, {{K::xorshift_right, s1}, {K::mul_const, m1}, {K::xorshift_right, s2}});
}

TEST(Families, PicksTheBestCompatibleProgramsPerLaneWidth) {
  std::vector<FamilyCandidate> pool{
      {xm(7, 3, 107, 4), 0.20},
      {xm(7, 3, 67, 3), 0.30},
      {xm(7, 2, 5, 3), 0.90},
      {xm(32, 16, 0x7feb352d, 15), 1e-4},
      {xm(32, 15, 0x846ca68b, 16), 2e-4},
      // A different kind sequence with better 7-bit lanes but no 32-bit members.
      {mixer::Program(7, {{K::mul_const, 3}, {K::xorshift_right, 3}}), 0.10},
      {mixer::Program(7, {{K::mul_const, 5}, {K::xorshift_right, 2}}), 0.11},
  };
  const std::vector<int> widths{7, 7, 32, 32};
  const auto fams = find_families(pool, widths, 5);
  ASSERT_EQ(fams.size(), 1u);
  EXPECT_EQ(fams[0].members, (std::vector<std::size_t>{0, 1, 3, 4}));
  EXPECT_EQ(fams[0].kinds, (std::vector<mixer::StepKind>{K::xorshift_right, K::mul_const, K::xorshift_right}));
  // The lanes really pack.
  std::array<mixer::Program, 4> lanes;
  for (int i = 0; i < 4; ++i) lanes[i] = pool[fams[0].members[i]].program;
  EXPECT_TRUE(packable(lanes));
}

TEST(Families, RanksByTheWorstLaneRelativeToTheBestOfItsWidth) {
  std::vector<FamilyCandidate> pool{
      {xm(8, 1, 15, 3), 0.11},
      {mixer::Program(8, {{K::mul_const, 15}, {K::xorshift_right, 3}}), 0.20},
      {mixer::Program(8, {{K::mul_const, 17}, {K::xorshift_right, 2}}), 0.12},
      {xm(8, 2, 29, 3), 0.50},
  };
  const std::vector<int> widths{8, 8};
  const auto fams = find_families(pool, widths, 5);
  ASSERT_EQ(fams.size(), 2u);
  // mul/xsr family: worst 0.20 / 0.11; xsr/mul/xsr family: worst 0.50 / 0.11.
  EXPECT_EQ(fams[0].members, (std::vector<std::size_t>{2, 1}));
  EXPECT_EQ(fams[1].members, (std::vector<std::size_t>{0, 3}));
}

TEST(Families, DuplicatesDoNotFillTwoLanesAndBadWidthsThrow) {
  std::vector<FamilyCandidate> pool{{xm(16, 8, 0x2c2b, 7), 0.1}, {xm(16, 8, 0x2c2b, 7), 0.1}};
  const std::vector<int> two{16, 16};
  EXPECT_TRUE(find_families(pool, two).empty());
  const std::vector<int> bad{40};
  EXPECT_THROW(find_families(pool, bad), std::invalid_argument);
}

// A negative chi2 (a noise-corrected sampled estimate below zero) is not a score to rank
// by: it made every other ratio infinite. The function refuses it and names the program.
TEST(Families, NegativeScoresAreRefused) {
  std::vector<FamilyCandidate> pool{{xm(16, 8, 0x2c2b, 7), 0.1}, {xm(16, 7, 0x2c2d, 8), -3e-6}};
  const std::vector<int> two{16, 16};
  try {
    find_families(pool, two);
    FAIL() << "a negative chi2 was ranked";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("negative chi2"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace mixforge::shader
