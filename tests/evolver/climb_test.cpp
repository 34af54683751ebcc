// The exact climb (evolver/search/climb.*): its moves against an independent plain exact
// loop at 16 bits, the pair order, the cooperative stop, the check, a survey.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <unordered_map>
#include <vector>

#include "avalanche/stats/chi_square.hpp"
#include "avalanche/count/exact_counter.hpp"
#include "evolver/search/climb.hpp"
#include "evolver/run/run.hpp"
#include "evolver/search/local_search.hpp"
#include "mixer/text_form.hpp"
#include "support/reference_functions.hpp"

using namespace mixforge;
using namespace mixforge::evolver;

namespace {

double exact(const mixer::Program& p) { return avalanche::score(avalanche::interpreted_counts_exact(p)).chi2; }

// Independent of mixforge's interpreter and counters: xorshift-right and multiply written
// out, every input and every flipped bit counted in a plain loop; chi2 = sum (A - 0.5)^2 / 0.5.
double plain_exact(const mixer::Program& p) {
  const int n = p.width();
  const std::uint64_t mask = (std::uint64_t{1} << n) - 1;
  auto f = [&](std::uint64_t x) {
    for (const mixer::Step& s : p.steps()) {
      if (s.kind == mixer::StepKind::xorshift_right)
        x ^= x >> s.operand;
      else if (s.kind == mixer::StepKind::mul_const)
        x = (x * s.operand) & mask;
      else
        throw std::logic_error("plain_exact knows xsr and mul only");
    }
    return x;
  };
  std::vector<std::uint64_t> counts(static_cast<std::size_t>(n * n), 0);
  for (std::uint64_t x = 0; x <= mask; ++x) {
    const std::uint64_t y = f(x);
    for (int i = 0; i < n; ++i) {
      const std::uint64_t d = y ^ f(x ^ (std::uint64_t{1} << i));
      for (int j = 0; j < n; ++j) counts[static_cast<std::size_t>(i * n + j)] += (d >> j) & 1;
    }
  }
  double chi2 = 0;
  for (std::uint64_t c : counts) {
    const double a = double(c) / double(mask + 1) - 0.5;
    chi2 += a * a / 0.5;
  }
  return chi2;
}

// Every program one move away, enumerated here (not by neighbours()): shifts +-1 within
// 1..n-1, single-bit flips of multipliers above bit 0.
std::vector<mixer::Program> plain_single_moves(const mixer::Program& p) {
  std::vector<mixer::Program> out;
  const int n = p.width();
  for (std::size_t i = 0; i < p.size(); ++i) {
    const mixer::Step& s = p.steps()[i];
    std::vector<std::uint64_t> operands;
    if (s.kind == mixer::StepKind::xorshift_right) {
      if (s.operand > 1) operands.push_back(s.operand - 1);
      if (s.operand + 1 < std::uint64_t(n)) operands.push_back(s.operand + 1);
    } else {
      for (int b = 1; b < n; ++b) operands.push_back(s.operand ^ (std::uint64_t{1} << b));
    }
    for (std::uint64_t v : operands) {
      std::vector<mixer::Step> steps = p.steps();
      steps[i].operand = v;
      out.emplace_back(n, steps);
    }
  }
  return out;
}

test::ReferenceMixer published_16_2round() {
  for (const test::ReferenceMixer& m : test::reference_mixers("records.json"))
    if (m.name == "published-16-2round") return m;
  throw std::runtime_error("records.json has no published-16-2round");
}

// The published function with bit 15 of its second multiplier flipped: 0x4b2d -> 0xcb2d.
mixer::Program off_by_one_bit(const mixer::Program& published) {
  std::vector<mixer::Step> steps = published.steps();
  steps[3].operand ^= 0x8000;
  return mixer::Program(published.width(), steps);
}

}  // namespace

// hash-prospector's published 16-bit 2-round function [8 a3d3 7 4b2d 9], one bit flip away:
// the climb moves to a program that the plain loop scores lower, and ends at the published
// function, which the plain loop finds to have no lower program one move away.
TEST(Climb, FindsTheKnownLowerNeighbourOfAPublishedFunction) {
  const test::ReferenceMixer record = published_16_2round();
  const mixer::Program published = mixer::parse_program(record.text, {16});
  const mixer::Program start = off_by_one_bit(published);
  const double start_chi2 = plain_exact(start);
  ASSERT_NEAR(exact(start), start_chi2, 1e-12 * start_chi2);

  // The plain loop: which single moves are lower than the start.
  std::vector<std::uint64_t> lower;
  for (const mixer::Program& q : plain_single_moves(start))
    if (plain_exact(q) < start_chi2) lower.push_back(q.hash());
  ASSERT_FALSE(lower.empty());
  EXPECT_NE(std::find(lower.begin(), lower.end(), published.hash()), lower.end());

  Climb climb(start, exact(start));
  std::vector<ClimbStep> moves;
  ClimbHooks hooks;
  hooks.progress = [&](const Climb&, const ClimbStep& s) {
    if (s.moved) moves.push_back(s);
  };
  ASSERT_TRUE(run_climb(climb, exact, exact, hooks));
  ASSERT_FALSE(moves.empty());
  EXPECT_FALSE(moves.front().pair);
  EXPECT_NE(std::find(lower.begin(), lower.end(), moves.front().program.hash()), lower.end());
  EXPECT_NEAR(moves.front().chi2, plain_exact(moves.front().program), 1e-12 * start_chi2);

  EXPECT_EQ(climb.centre(), published);
  EXPECT_NEAR(climb.centre_chi2(), record.chi2, 1e-12 * record.chi2);
  EXPECT_EQ(climb.moves(), moves.size());
  EXPECT_TRUE(climb.done());
  for (const mixer::Program& q : plain_single_moves(published))
    EXPECT_GE(plain_exact(q), climb.centre_chi2()) << mixer::format_short(q);
  // Every program one and two moves around the end was scored (some around the start).
  EXPECT_GT(climb.scored(), neighbours(published).size());
}

TEST(Climb, StopsBetweenScoresAndGoesOnWhereItWas) {
  const mixer::Program start = off_by_one_bit(mixer::parse_program(published_16_2round().text, {16}));
  Climb whole(start, exact(start));
  std::vector<std::uint64_t> order;
  ClimbHooks record;
  record.progress = [&](const Climb&, const ClimbStep& s) { order.push_back(s.program.hash()); };
  ASSERT_TRUE(run_climb(whole, exact, exact, record));

  Climb sliced(start, exact(start));
  std::vector<std::uint64_t> sliced_order;
  int slices = 0;
  for (bool done = false; !done; ++slices) {
    int left = 7;
    ClimbHooks hooks;
    hooks.keep_going = [&] { return left-- > 0; };
    hooks.progress = [&](const Climb&, const ClimbStep& s) { sliced_order.push_back(s.program.hash()); };
    const std::uint64_t before = sliced.scored();
    done = run_climb(sliced, exact, exact, hooks);
    if (!done) EXPECT_EQ(sliced.scored(), before + 7);
  }
  EXPECT_GT(slices, 10);
  EXPECT_EQ(sliced_order, order);
  EXPECT_EQ(sliced.centre(), whole.centre());
  EXPECT_EQ(sliced.scored(), whole.scored());
  EXPECT_EQ(sliced.moves(), whole.moves());
}

// A score that throws (a cancelled count) leaves the climb where it was.
TEST(Climb, AScoreThatThrowsLeavesTheClimbWhereItWas) {
  const mixer::Program start = off_by_one_bit(mixer::parse_program(published_16_2round().text, {16}));
  Climb climb(start, exact(start));
  ASSERT_TRUE(climb.step(exact, exact));
  const std::size_t at = climb.position();
  const std::uint64_t scored = climb.scored();
  EXPECT_THROW(climb.step([](const mixer::Program&) -> double { throw std::runtime_error("cancelled"); }, exact),
               std::runtime_error);
  EXPECT_EQ(climb.position(), at);
  EXPECT_EQ(climb.scored(), scored);
  const std::optional<ClimbStep> next = climb.step(exact, exact);
  ASSERT_TRUE(next);
  // The same program as a climb that never saw the throw scores second.
  Climb twin(start, exact(start));
  ASSERT_TRUE(twin.step(exact, exact));
  const std::optional<ClimbStep> second = twin.step(exact, exact);
  ASSERT_TRUE(second);
  EXPECT_EQ(next->program, second->program);
}

// A lower program whose check disagrees is not moved to (nor scored again).
TEST(Climb, MovesOnlyWhereTheCheckAgrees) {
  const mixer::Program start = off_by_one_bit(mixer::parse_program(published_16_2round().text, {16}));
  Climb climb(start, exact(start));
  int lower = 0;
  ClimbHooks hooks;
  hooks.progress = [&](const Climb&, const ClimbStep& s) {
    if (s.lower) {
      ++lower;
      ASSERT_TRUE(s.check);
      EXPECT_NE(*s.check, s.chi2);
    }
    EXPECT_FALSE(s.moved);
  };
  ASSERT_TRUE(run_climb(
      climb, exact, [](const mixer::Program& q) { return exact(q) * 2; }, hooks));
  EXPECT_GT(lower, 0);
  EXPECT_EQ(climb.moves(), 0u);
  EXPECT_EQ(climb.centre(), start);
}

// A survey scores every program one and two moves away, once each, and never moves.
TEST(Climb, ASurveyScoresTheWholeNeighbourhood) {
  const mixer::Program start = mixer::parse_program("x ^= x >> 5; x *= 0xa3; x ^= x >> 4;", {8});
  Climb survey(start, exact(start), ClimbOptions{true, false});
  ASSERT_TRUE(run_climb(survey, exact, exact));
  EXPECT_EQ(survey.scored(), neighbours(start).size() + pair_neighbours(start).size());
  EXPECT_EQ(survey.moves(), 0u);
  EXPECT_EQ(survey.centre(), start);
  Climb singles(start, exact(start), ClimbOptions{false, false});
  ASSERT_TRUE(run_climb(singles, exact, exact));
  EXPECT_EQ(singles.scored(), neighbours(start).size());
}

// Pairs by the higher score of their two single moves, lowest first; a pair with a move
// never scored comes last.
TEST(Climb, OrdersPairsByTheirSingleMovesScores) {
  const mixer::Program centre = mixer::parse_program("x ^= x >> 5; x *= 0xa3; x ^= x >> 4;", {8});
  std::unordered_map<std::uint64_t, double> scores;
  const std::vector<mixer::Program> singles = neighbours(centre);
  for (std::size_t i = 0; i + 1 < singles.size(); ++i) scores[singles[i].hash()] = double((i * 7) % 11);
  std::vector<mixer::Program> pairs = pair_neighbours(centre);
  order_pairs(centre, scores, pairs);
  ASSERT_EQ(pairs.size(), pair_neighbours(centre).size());
  // q's two single moves: the singles s with q one move from s.
  auto key = [&](const mixer::Program& q) {
    double worst = -1;
    int parts = 0;
    for (const mixer::Program& s : singles)
      for (const mixer::Program& r : neighbours(s))
        if (r == q) {
          ++parts;
          const auto it = scores.find(s.hash());
          worst = std::max(worst, it == scores.end() ? 1e9 : it->second);
        }
    EXPECT_EQ(parts, 2) << mixer::format_short(q);
    return worst;
  };
  for (std::size_t i = 1; i < pairs.size(); ++i) EXPECT_LE(key(pairs[i - 1]), key(pairs[i])) << i;
  EXPECT_EQ(key(pairs.back()), 1e9);
}

TEST(Climb, RefusesProgramsTooWideForExactScores) {
  const mixer::Program wide = mixer::parse_program("x ^= x >> 30; x *= 0x7feb352d7feb352d;", {64});
  EXPECT_THROW(Climb(wide, 1.0), std::invalid_argument);
}

// Runs started from seed programs (RunConfig::seed_programs): the climb inside worker steps.
namespace {

RunConfig seeded_config(bool exact) {
  RunConfig c;
  c.width = 16;
  c.pool_size = 30;
  c.seed = 5;
  c.threads = 1;
  c.budget.tournaments = 100;
  if (!exact) {
    c.precision.exact_max_width = 0;  // sampled tournaments; the climb's scores stay exact
    c.precision.initial_samples = 256;
    c.precision.max_samples = 1024;
  }
  c.seed_programs = {off_by_one_bit(mixer::parse_program(published_16_2round().text, {16}))};
  return c;
}

std::vector<std::uint64_t> pool_hashes(const Checkpoint& c) {
  std::vector<std::uint64_t> out;
  for (const Member& m : c.pool) out.push_back(m.hash);
  return out;
}

}  // namespace

TEST(SeedRun, AOneThreadRunClimbsFromItsSeedToThePublishedFunctionReproducibly) {
  const test::ReferenceMixer record = published_16_2round();
  const mixer::Program published = mixer::parse_program(record.text, {16});
  avalanche::Evaluator ev(nullptr);
  std::vector<Checkpoint> ends;
  for (int k = 0; k < 2; ++k) {
    evolver::Run run("seeded", seeded_config(true), ev);
    run.start(run.config().budget);
    run.wait();
    ASSERT_EQ(run.error(), "");
    ends.push_back(run.snapshot());
  }
  const Checkpoint& c = ends[0];
  ASSERT_TRUE(c.best);
  EXPECT_EQ(c.best->program, published);
  EXPECT_NEAR(c.best->estimate.chi2, record.chi2, 1e-12 * record.chi2);
  ASSERT_EQ(c.climbs.size(), 1u);
  EXPECT_TRUE(c.climbs[0].done);
  EXPECT_EQ(c.climbs[0].moves, 1u);
  EXPECT_EQ(c.climbs[0].centre, published);
  EXPECT_GT(c.climbs[0].scored, neighbours(published).size());
  EXPECT_NE(std::find(pool_hashes(c).begin(), pool_hashes(c).end(), published.hash()), pool_hashes(c).end());
  // One thread: the same climb, pool and counters on every run.
  EXPECT_EQ(pool_hashes(ends[1]), pool_hashes(c));
  EXPECT_EQ(ends[1].counters.exact_scored, c.counters.exact_scored);
  EXPECT_EQ(ends[1].counters.tournaments, c.counters.tournaments);
  EXPECT_EQ(ends[1].climbs[0].scored, c.climbs[0].scored);
}

// At sampled widths the climb's scores are exact all the same, and its end is the run's best.
TEST(SeedRun, ASampledRunsClimbIsExact) {
  const mixer::Program published = mixer::parse_program(published_16_2round().text, {16});
  avalanche::Evaluator ev(nullptr);
  evolver::Run run("seeded", seeded_config(false), ev);
  run.start(run.config().budget);
  run.wait();
  ASSERT_EQ(run.error(), "");
  ASSERT_TRUE(run.best());
  EXPECT_EQ(run.best()->program, published);
  EXPECT_TRUE(run.best()->estimate.exact);
  ASSERT_EQ(run.climbs().size(), 1u);
  EXPECT_TRUE(run.climbs()[0].done);
}

// A checkpoint keeps each climb's centre: a resumed run goes on from there (here the
// checkpoint is set back to a climb that had just scored its seed).
TEST(SeedRun, AResumedClimbGoesOnFromItsCentre) {
  const mixer::Program published = mixer::parse_program(published_16_2round().text, {16});
  avalanche::Evaluator ev(nullptr);
  Checkpoint c;
  {
    evolver::Run run("seeded", seeded_config(true), ev);
    run.start(run.config().budget);
    run.wait();
    c = run.snapshot();
  }
  const mixer::Program seed = seeded_config(true).seed_programs[0];
  ClimbStatus& st = c.climbs.at(0);
  st.centre = seed;
  st.chi2_exact = exact(seed);
  st.moves = 0;
  st.scored = 1;
  st.done = false;
  evolver::Run resumed("seeded", seeded_config(true), ev, c);
  EXPECT_FALSE(resumed.climbs()[0].done);
  resumed.start(resumed.config().budget);
  resumed.wait();
  ASSERT_EQ(resumed.error(), "");
  EXPECT_TRUE(resumed.climbs()[0].done);
  EXPECT_EQ(resumed.climbs()[0].centre, published);
  EXPECT_EQ(resumed.climbs()[0].moves, 1u);
  EXPECT_GT(resumed.climbs()[0].scored, 1u);
}
