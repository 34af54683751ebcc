// The single moves' order of the exact climb (evolver/search/move_order.*): the classes of
// moves, the prior's ranking at 32 bits, learning from scores, and a 16-bit climb whose lower
// move is a multiplier's top bit (found sooner informed than in neighbours()' own order).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "avalanche/count/exact_counter.hpp"
#include "avalanche/stats/chi_square.hpp"
#include "evolver/search/climb.hpp"
#include "evolver/search/local_search.hpp"
#include "evolver/search/move_order.hpp"
#include "mixer/text_form.hpp"

using namespace mixforge;
using namespace mixforge::evolver;

namespace {

const mixer::Program f35 =
    mixer::parse_program("x ^= x >> 16; x *= 0x21f0aaad; x ^= x >> 15; x *= 0xf35a2d97; x ^= x >> 15;", {32});

mixer::Program with_operand(const mixer::Program& p, std::size_t step, std::uint64_t operand) {
  std::vector<mixer::Step> s = p.steps();
  s[step].operand = operand;
  return mixer::Program(p.width(), s);
}

std::vector<std::uint64_t> hashes(const std::vector<mixer::Program>& ps) {
  std::vector<std::uint64_t> out;
  for (const mixer::Program& p : ps) out.push_back(p.hash());
  std::sort(out.begin(), out.end());
  return out;
}

double exact(const mixer::Program& p) { return avalanche::score(avalanche::interpreted_counts_exact(p)).chi2; }

}  // namespace

TEST(MoveClass, ShiftsByPlaceAndConstantBitsByEighth) {
  EXPECT_EQ(move_class(f35, with_operand(f35, 0, 15)), 16);                      // the first step's shift: outer
  EXPECT_EQ(move_class(f35, with_operand(f35, 4, 14)), 16);                      // the last step's
  EXPECT_EQ(move_class(f35, with_operand(f35, 2, 16)), 19);                      // an inner one, +1
  EXPECT_EQ(move_class(f35, with_operand(f35, 2, 14)), 18);                      // -1
  EXPECT_EQ(move_class(f35, with_operand(f35, 0, 17)), 17);                      // the first step's, +1
  EXPECT_EQ(move_class(f35, with_operand(f35, 3, 0xf35a2d97 ^ 0x80000000)), 7);  // bit 31
  EXPECT_EQ(move_class(f35, with_operand(f35, 3, 0xf35a2d97 ^ 0x10000000)), 7);  // bit 28
  EXPECT_EQ(move_class(f35, with_operand(f35, 3, 0xf35a2d97 ^ 0x08000000)), 6);  // bit 27
  EXPECT_EQ(move_class(f35, with_operand(f35, 1, 0x21f0aaad ^ 0x2)), 0);         // bit 1
  EXPECT_EQ(move_class(f35, with_operand(f35, 1, 0x21f0aaad ^ 0x10)), 1);        // bit 4
  // Other constants: their own eighths; at 16 bits an eighth is two bits.
  const mixer::Program x = mixer::parse_program("x ^= 0x1234; x *= 0xa3d3;", {16});
  EXPECT_EQ(move_class(x, with_operand(x, 0, 0x1234 ^ 0x8000)), 15);
  EXPECT_EQ(move_class(x, with_operand(x, 0, 0x1234 ^ 0x1)), 8);
  EXPECT_EQ(move_class(x, with_operand(x, 1, 0xa3d3 ^ 0x4000)), 7);
  EXPECT_EQ(move_class(x, with_operand(x, 1, 0xa3d3 ^ 0x2000)), 6);
  EXPECT_EQ(move_class(f35, with_operand(f35, 3, 0xf35a2d97 ^ 0xa0000000)), top_bit_pair_class);  // bits 29, 31
  EXPECT_THROW(move_class(f35, with_operand(f35, 3, 0xf35a2d97 ^ 0x80000002)), std::invalid_argument);
  EXPECT_THROW(move_class(f35, f35), std::invalid_argument);
  EXPECT_THROW(move_class(f35, with_operand(with_operand(f35, 0, 15), 2, 16)), std::invalid_argument);
}

TEST(MoveOrderName, ParsesBothAndNamesThemOtherwise) {
  EXPECT_EQ(parse_move_order("fixed"), MoveOrder::fixed);
  EXPECT_EQ(parse_move_order("informed"), MoveOrder::informed);
  EXPECT_EQ(move_order_name(MoveOrder::informed), "informed");
  try {
    parse_move_order("sideways");
    FAIL() << "accepted";
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("\"fixed\""), std::string::npos) << what;
    EXPECT_NE(what.find("\"informed\""), std::string::npos) << what;
    EXPECT_NE(what.find("sideways"), std::string::npos) << what;
  }
}

// Two of bits 28-31 of each multiplier at 32 bits (6 each), 14+15 at 16, none at 8 (one bit).
TEST(TopBitPairs, TwoBitsOfEachMultipliersTopEighth) {
  const std::vector<mixer::Program> pairs = top_bit_pairs(f35);
  ASSERT_EQ(pairs.size(), 12u);
  for (const mixer::Program& q : pairs) EXPECT_EQ(move_class(f35, q), top_bit_pair_class) << mixer::format_short(q);
  EXPECT_EQ(pairs.front(), with_operand(f35, 1, 0x21f0aaad ^ 0x30000000));
  EXPECT_EQ(pairs.back(), with_operand(f35, 3, 0xf35a2d97 ^ 0xc0000000));
  const mixer::Program p16 = mixer::parse_program("x ^= x >> 8; x *= 0xa3d3; x ^= x >> 7; x *= 0x4b2d;", {16});
  ASSERT_EQ(top_bit_pairs(p16).size(), 2u);
  EXPECT_EQ(top_bit_pairs(p16)[0], with_operand(p16, 1, 0xa3d3 ^ 0xc000));
  EXPECT_TRUE(top_bit_pairs(mixer::parse_program("x ^= x >> 5; x *= 0xa3;", {8})).empty());
  // Every one is also among pair_neighbours(): the pairs phase skips them once scored.
  const std::vector<std::uint64_t> all = hashes(pair_neighbours(f35));
  for (const mixer::Program& q : pairs) EXPECT_TRUE(std::binary_search(all.begin(), all.end(), q.hash()));
}

// Before any score: the multipliers' top eighth first (where both 32-bit records' climbs
// moved), inner shifts last; the same moves as neighbours(), ties in its order.
TEST(MoveStats, ThePriorPutsTopMultiplierBitsFirstAndKeepsTheSet) {
  std::vector<mixer::Program> moves = neighbours(f35);
  MoveStats().order(f35, moves);
  EXPECT_EQ(hashes(moves), hashes(neighbours(f35)));
  for (std::size_t i = 0; i < 8; ++i) EXPECT_EQ(move_class(f35, moves[i]), 7) << i;
  // bits 28-31 of the first multiplier, then of the second: neighbours()' order within a class
  EXPECT_EQ(moves[0], with_operand(f35, 1, 0x21f0aaad ^ 0x10000000));
  EXPECT_EQ(moves[7], with_operand(f35, 3, 0xf35a2d97 ^ 0x80000000));
  EXPECT_GE(move_class(f35, moves.back()), 18);  // an inner shift
  EXPECT_LE(move_class(f35, moves.back()), 19);
  for (std::size_t i = 1; i < moves.size(); ++i) {
    const MoveStats prior;
    EXPECT_LE(prior.expected(move_class(f35, moves[i - 1])), prior.expected(move_class(f35, moves[i]))) << i;
  }
}

// Scores teach: low bits that keep coming out lower than the centre move to the front, and
// only the moves after `from` are reordered.
TEST(MoveStats, LowBitsThatScoreLowComeFirstOnceLearned) {
  MoveStats stats;
  const double centre_chi2 = 1e-5;
  for (int b = 1; b < 4; ++b)
    stats.observe(f35, centre_chi2, with_operand(f35, 1, 0x21f0aaad ^ (std::uint64_t{1} << b)), centre_chi2 / 4);
  EXPECT_LT(stats.expected(0), MoveStats().expected(7));
  std::vector<mixer::Program> moves = neighbours(f35);
  const std::vector<mixer::Program> fixed = moves;
  stats.order(f35, moves, 5);
  for (std::size_t i = 0; i < 5; ++i) EXPECT_EQ(moves[i], fixed[i]) << i;
  EXPECT_EQ(move_class(f35, moves[5]), 0);
  EXPECT_EQ(hashes(moves), hashes(fixed));
}

// Far from an optimum (2 of the last 8 scores lower than their centre) the order is by the
// gain a class has shown: a shift that keeps paying comes first although shifts cost most
// in the prior; after 8 scores that are not lower the order is by cost again.
TEST(MoveStats, FarFromAnOptimumTheClassThatGainsComesFirst) {
  MoveStats stats;
  EXPECT_FALSE(stats.far());
  const double centre_chi2 = 1.0;
  stats.observe(f35, centre_chi2, with_operand(f35, 2, 16), centre_chi2 / 8);  // inner shift +1: 8x lower
  EXPECT_FALSE(stats.far()) << "one lower score";
  stats.observe(f35, centre_chi2, with_operand(f35, 2, 16), centre_chi2 / 4);
  EXPECT_TRUE(stats.far());
  EXPECT_GT(stats.expected_gain(19), stats.expected_gain(7));
  std::vector<mixer::Program> moves = neighbours(f35);
  stats.order(f35, moves);
  EXPECT_EQ(moves.front(), with_operand(f35, 2, 16));
  for (int k = 0; k < 8; ++k)
    stats.observe(f35, centre_chi2, with_operand(f35, 1, 0x21f0aaad ^ 0x2), centre_chi2 * 3);  // low bit: worse
  EXPECT_FALSE(stats.far());
  // By cost again: the shift's learned cost (two scores 4-8x lower) is still the lowest.
  moves = neighbours(f35);
  stats.order(f35, moves);
  EXPECT_EQ(moves.front(), with_operand(f35, 2, 16));
  for (std::size_t i = 1; i < moves.size(); ++i)
    EXPECT_LE(stats.expected(move_class(f35, moves[i - 1])), stats.expected(move_class(f35, moves[i]))) << i;
}

// hash-prospector's 16-bit [8 a3d3 7 4b2d 9] with bit 15 of its second multiplier flipped:
// the lower move is that top bit. Both orders climb back to the published function, and
// both end at a local optimum; the informed order scores fewer programs to get there.
TEST(MoveOrderClimb, FindsATopBitMoveSoonerThanTheFixedOrder) {
  const mixer::Program published =
      mixer::parse_program("x ^= x >> 8; x *= 0xa3d3; x ^= x >> 7; x *= 0x4b2d; x ^= x >> 9;", {16});
  const mixer::Program start = with_operand(published, 3, 0xcb2d);
  std::uint64_t scored_to_move[2] = {0, 0};
  for (const MoveOrder order : {MoveOrder::fixed, MoveOrder::informed}) {
    ClimbOptions o;
    o.pairs = false;
    o.order = order;
    Climb climb(start, exact(start), o);
    std::uint64_t& to_move = scored_to_move[order == MoveOrder::informed];
    while (climb.moves() == 0) {
      ASSERT_TRUE(climb.step(exact, exact)) << "no lower single move";
    }
    to_move = climb.scored();
    EXPECT_EQ(climb.centre(), published) << move_order_name(order);
    ASSERT_TRUE(run_climb(climb, exact, exact));
    EXPECT_EQ(climb.centre(), published) << move_order_name(order);
    for (const mixer::Program& q : neighbours(published)) EXPECT_GE(exact(q), climb.centre_chi2());
    // Informed: the single moves and the top-bit pairs of both multipliers (14+15 each).
    EXPECT_EQ(climb.neighbourhood_size(), neighbours(published).size() + (order == MoveOrder::informed ? 2 : 0));
  }
  EXPECT_EQ(scored_to_move[0], 36u);  // 6 shift moves, 15 bits of the first multiplier, 15 of the second
  EXPECT_LE(scored_to_move[1], 4u) << "the top eighth of both multipliers is 4 moves";
}
