// Local search around a leader (evolver/search/local_search.*): the neighbourhood, the moves it
// confirms, its hooks, and a run that uses it.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <thread>
#include <limits>
#include <set>

#include "avalanche/evaluator.hpp"
#include "evolver/search/local_search.hpp"
#include "evolver/run/run.hpp"
#include "mixer/program.hpp"
#include "mixer/text_form.hpp"

using namespace mixforge;
using namespace mixforge::evolver;

namespace {

const avalanche::Evaluator& jit_ev() {
  static const std::unique_ptr<avalanche::Evaluator> ev = avalanche::Evaluator::with_own_engine();
  return *ev;
}

// A 24-bit function of the good shape with a poor second multiplier: cheap to score
// exactly (2^24 inputs), and with better neighbours.
mixer::Program start24() {
  return mixer::parse_program("x ^= x >> 12; x *= 0x93a9b5; x ^= x >> 11; x *= 0x000f05; x ^= x >> 12;", {24});
}

// The same shape at 20 bits, for the tests that only count what local search does: 16x
// cheaper to score exactly (HooksStopAndSkip took 31 s under TSan at 24 bits).
mixer::Program start20() {
  return mixer::parse_program("x ^= x >> 10; x *= 0x93a9b; x ^= x >> 9; x *= 0x00f05; x ^= x >> 10;", {20});
}

Estimate exact_of(const mixer::Program& p) {
  const avalanche::Score s = jit_ev().exact(p);
  Estimate e;
  e.chi2 = s.chi2;
  e.samples = s.samples;
  e.exact = true;
  return e;
}

// Hooks that score exactly, count the exact scores and record each move, stopping the
// search after max_moves moves.
struct Recorder {
  std::vector<std::pair<mixer::Program, double>> moves;
  int exact_calls = 0;
  LocalSearchHooks hooks(std::size_t max_moves) {
    LocalSearchHooks h;
    h.exact = [this](const mixer::Program& q) {
      ++exact_calls;
      return exact_of(q);
    };
    h.improved = [this, max_moves](const mixer::Program& q, const Estimate& e) {
      moves.emplace_back(q, e.chi2);
      return moves.size() < max_moves;
    };
    return h;
  }
};

// A small sampled run (one worker, leader rounds every 100 tournaments) for the tests of the
// ranker's local search.
RunConfig sampled_run(int width, std::uint64_t seed, int log2_samples) {
  RunConfig c;
  c.width = width;
  c.max_steps = 5;
  c.pool_size = 40;
  c.threads = 1;
  c.seed = seed;
  c.precision.initial_samples = std::uint64_t{1} << log2_samples;
  c.precision.max_samples = std::uint64_t{1} << (log2_samples + 2);
  c.precision.leader_interval = 100;
  return c;
}

// Runs until done() says so (or the run ends), stops it, and checks what a run with local
// search promises: no error, and a hall of fame of exact scores, each below the one before.
// The 10 minutes are a liveness bound, not a timing assertion: far beyond what any build needs.
template <typename Done>
void run_until(evolver::Run& run, Done done) {
  run.start(Budget{});
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::minutes(10);
  while (!done() && !run.done() && std::chrono::steady_clock::now() < give_up)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  run.request_stop();
  run.wait();
  ASSERT_EQ(run.error(), "");
  const std::vector<HallOfFameEntry> hof = run.drain_hall_of_fame();
  ASSERT_FALSE(hof.empty());
  for (std::size_t i = 0; i < hof.size(); ++i) {
    EXPECT_TRUE(hof[i].function.exact);
    if (i > 0) {
      EXPECT_LT(hof[i].function.chi2, hof[i - 1].function.chi2);
    }
  }
}

}  // namespace

TEST(LocalSearch, NeighboursAreTheShiftsAndSingleBitFlips) {
  const mixer::Program p =
      mixer::parse_program("x ^= x >> 16; x *= 0x7feb352d; x ^= x >> 15; x *= 0x846ca68b; x ^= x >> 16;");
  const std::vector<mixer::Program> ns = neighbours(p);
  EXPECT_EQ(ns.size(), 3u * 2 + 2u * 31);  // shifts +-1; multiplier bits 1..31
  std::set<std::uint64_t> ids;
  for (const mixer::Program& q : ns) {
    EXPECT_NO_THROW(mixer::validate(q)) << mixer::format_program(q);
    EXPECT_NE(q, p);
    ids.insert(q.hash());
    int changed = 0;
    for (std::size_t i = 0; i < p.size(); ++i) changed += q.steps()[i] != p.steps()[i];
    EXPECT_EQ(changed, 1) << mixer::format_program(q);
  }
  EXPECT_EQ(ids.size(), ns.size());
  // Amounts stay in 1..n-1; xor constants flip every bit, bit 0 included.
  const mixer::Program edge = mixer::parse_program("x ^= x >> 1; x ^= 0x5; x = (x << 7) | (x >> 1);", {8});
  const std::vector<mixer::Program> en = neighbours(edge);
  EXPECT_EQ(en.size(), 1u + 1u + 8u);
  for (const mixer::Program& q : en) EXPECT_NO_THROW(mixer::validate(q)) << mixer::format_program(q);
}

TEST(LocalSearch, MovesOnlyToExactlyBetterNeighbours) {
  const mixer::Program p = start24();
  const double start = exact_of(p).chi2;
  LocalSearchOptions o;
  o.first_samples = 1u << 14;
  o.max_samples = 1u << 18;
  Recorder r;
  const LocalSearchHooks h = r.hooks(4);  // enough moves to see a chain; the test stays quick
  auto& [moves, exact_calls] = r;
  const LocalSearchCounters c = local_search(p, start, jit_ev(), o, h);
  ASSERT_GE(moves.size(), 1u) << "no better neighbour of " << mixer::format_program(p) << " (chi2 " << start << ")";
  EXPECT_EQ(c.improvements, moves.size());
  EXPECT_EQ(c.exact_scored, static_cast<std::uint64_t>(exact_calls));
  EXPECT_LE(c.exact_scored, c.neighbours);
  EXPECT_GT(c.samples, 0u);
  double prev = start;
  mixer::Program centre = p;
  for (const auto& [q, chi2] : moves) {
    EXPECT_LT(chi2, prev);
    EXPECT_DOUBLE_EQ(chi2, jit_ev().exact(q).chi2);  // the reported score is the exact one
    const std::vector<mixer::Program> around = neighbours(centre);
    EXPECT_NE(std::find(around.begin(), around.end(), q), around.end()) << "a move is one step away";
    prev = chi2;
    centre = q;
  }
}

TEST(LocalSearch, HooksStopAndSkip) {
  const mixer::Program p = start20();
  LocalSearchOptions o;
  o.first_samples = 1u << 12;
  o.max_samples = 1u << 14;
  int calls = 0, skipped = 0;
  LocalSearchHooks h;
  h.exact = [](const mixer::Program& q) { return exact_of(q); };
  h.keep_going = [&] { return ++calls <= 5; };
  h.skip = [&](std::uint64_t) { return ++skipped % 2 == 0; };  // every second one is known
  const LocalSearchCounters c = local_search(p, exact_of(p).chi2, jit_ev(), o, h);
  EXPECT_EQ(c.neighbours, 5u);
  EXPECT_FALSE(c.local_optimum);
  EXPECT_GE(skipped, 10);
  // Wider than 32 bits there is no exact confirmation: nothing is done.
  const mixer::Program wide = mixer::parse_program("x ^= x >> 30; x *= 0xbf58476d1ce4e5b9; x ^= x >> 27;", {64});
  EXPECT_EQ(local_search(wide, 1.0, jit_ev(), o, h).neighbours, 0u);
}

// A sampled 20-bit run with local search: its moves are counted, and every hall-of-fame
// entry is exact and better than the one before. Local search only runs while no leader
// waits for its exact score, so how soon it gets a turn depends on how fast exact scores are
// against tournaments (a sanitizer build once ended a fixed 800-tournament budget before its
// first turn). The run therefore goes on until local search has compared neighbours, with
// exact scores slowed down on purpose to show the test does not depend on that balance.
TEST(LocalSearch, RunRecordsItsMovesInTheHallOfFame) {
  RunConfig c = sampled_run(20, 3, 12);
  c.local_search.first_samples = 1u << 14;
  c.local_search.max_samples = 1u << 16;
  evolver::Run run("ls", c, jit_ev());
  run.on_exact_start([] { std::this_thread::sleep_for(std::chrono::milliseconds(300)); });
  run_until(run, [&] { return run.counters().local_neighbours > 0; });
  const RunCounters k = run.counters();
  EXPECT_GT(k.local_neighbours, 0u) << "local search never had a turn in 10 minutes";
  // Switched off, it compares nothing in as many tournaments as the run above needed.
  c.local_search.enabled = false;
  Budget b;
  b.tournaments = std::max<std::uint64_t>(k.tournaments, 200);
  evolver::Run off("ls-off", c, jit_ev());
  off.start(b);
  off.wait();
  EXPECT_EQ(off.counters().local_neighbours, 0u);
  EXPECT_EQ(off.counters().local_improvements, 0u);
}

// Small widths skip the sampled stages (2^n inputs are cheaper than the samples): every
// neighbour is scored exactly, and the search ends at a true local optimum.
TEST(LocalSearch, SmallWidthsEndAtATrueLocalOptimum) {
  const mixer::Program p = mixer::parse_program("x ^= x >> 3; x *= 0x3b; x ^= x >> 2; x *= 0x19; x ^= x >> 4;", {8});
  LocalSearchHooks h;
  h.exact = [](const mixer::Program& q) { return exact_of(q); };
  LocalSearch s(p, exact_of(p).chi2, {});
  s.run(jit_ev(), h);
  ASSERT_TRUE(s.done());
  EXPECT_EQ(s.counters().samples, 0u);
  EXPECT_LE(s.centre_chi2(), exact_of(p).chi2);
  for (const mixer::Program& q : neighbours(s.centre()))
    EXPECT_GE(exact_of(q).chi2, s.centre_chi2()) << mixer::format_program(q);
}

// A centre without an exact score (iterated local search's kicked starts) moves on sampled
// evidence alone: no exact score is asked for, each move is one step from the centre before,
// and on these 24-bit programs the end point is exactly better than the start.
TEST(LocalSearch, ASampledCentreMovesWithoutExactScores) {
  const mixer::Program p = start24();
  LocalSearchOptions o;
  o.first_samples = 1u << 14;
  o.max_samples = 1u << 20;
  std::vector<mixer::Program> moves;
  LocalSearchHooks h;
  h.exact = [](const mixer::Program& q) -> Estimate {
    ADD_FAILURE() << "exact score asked for " << mixer::format_program(q);
    return exact_of(q);
  };
  h.improved = [&](const mixer::Program& q, const Estimate& e) {
    EXPECT_FALSE(e.exact);
    EXPECT_EQ(e.samples, o.max_samples);
    moves.push_back(q);
    return moves.size() < 6;
  };
  LocalSearch s(p, std::numeric_limits<double>::quiet_NaN(), o);
  EXPECT_TRUE(s.sampled_centre());
  EXPECT_FALSE(s.centre_score());
  s.run(jit_ev(), h);
  ASSERT_GE(moves.size(), 1u) << "no move from " << mixer::format_program(p);
  EXPECT_EQ(s.counters().sampled_moves, moves.size());
  EXPECT_EQ(s.counters().exact_scored, 0u);
  EXPECT_EQ(s.counters().improvements, 0u);
  mixer::Program centre = p;
  for (const mixer::Program& q : moves) {
    const std::vector<mixer::Program> around = neighbours(centre);
    EXPECT_NE(std::find(around.begin(), around.end(), q), around.end()) << "a move is one step away";
    centre = q;
  }
  EXPECT_EQ(s.centre(), moves.back());
  ASSERT_TRUE(s.centre_score());
  EXPECT_EQ(s.centre_score()->samples, o.max_samples);
  // The sampled moves found a better function, by its exact score.
  EXPECT_LT(exact_of(s.centre()).chi2, exact_of(p).chi2);
}

// Iterated local search: once the run's best is a local optimum, the ranker goes on from
// kicked copies of it and from the pool's leaders. The run's best stays exact and only
// falls; switched off, no iterated search starts.
TEST(LocalSearch, IteratedSearchGoesOnFromKicksOnceTheBestIsALocalOptimum) {
  RunConfig c = sampled_run(18, 5, 10);
  c.local_search.first_samples = 1u << 10;
  c.local_search.max_samples = 1u << 14;
  c.local_search.iterated = true;
  evolver::Run run("ils", c, jit_ev());
  run_until(run, [&] { return run.kicks() >= 3; });
  EXPECT_GE(run.kicks(), 3u) << "no iterated search in 10 minutes";
  c.local_search.iterated = false;
  Budget b;
  b.tournaments = 200;
  evolver::Run off("ils-off", c, jit_ev());
  off.start(b);
  off.wait();
  EXPECT_EQ(off.kicks(), 0u);
}

TEST(LocalSearch, PairNeighboursAreTwoMovesEach) {
  const mixer::Program p =
      mixer::parse_program("x ^= x >> 16; x *= 0x7feb352d; x ^= x >> 15; x *= 0x846ca68b; x ^= x >> 16;");
  const std::vector<mixer::Program> singles = neighbours(p);
  std::set<std::uint64_t> single_ids;
  for (const mixer::Program& q : singles) single_ids.insert(q.hash());
  const std::vector<mixer::Program> pairs = pair_neighbours(p);
  // 68 single moves make 68 * 67 / 2 pairs; a shift's +1 and -1 cancel (3 shifts).
  EXPECT_EQ(pairs.size(), 68u * 67 / 2 - 3);
  std::set<std::uint64_t> ids;
  for (const mixer::Program& q : pairs) {
    EXPECT_NO_THROW(mixer::validate(q)) << mixer::format_program(q);
    EXPECT_NE(q, p);
    EXPECT_EQ(single_ids.count(q.hash()), 0u) << mixer::format_program(q);
    ids.insert(q.hash());
    // Two moves: two steps changed by one move each, or one constant with two bits flipped.
    int changed = 0, bits = 0;
    for (std::size_t i = 0; i < p.size(); ++i) {
      const mixer::Step& a = p.steps()[i];
      const mixer::Step& b = q.steps()[i];
      if (a == b) continue;
      ++changed;
      if (mixer::takes_shift(a.kind)) {
        EXPECT_EQ(a.operand > b.operand ? a.operand - b.operand : b.operand - a.operand, 1u);
        ++bits;
      } else {
        bits += std::popcount(a.operand ^ b.operand);
      }
    }
    EXPECT_EQ(bits, 2) << mixer::format_program(q);
    EXPECT_GE(changed, 1);
  }
  EXPECT_EQ(ids.size(), pairs.size());
}

// With pairs, a local optimum of single moves is not the end: the search goes on through
// the pairs, and ends where neither a single move nor a pair is exactly better. At 8 bits
// every neighbour is scored exactly, so this is checked exhaustively.
TEST(LocalSearch, PairsGoOnFromALocalOptimumOfSingleMoves) {
  LocalSearchHooks h;
  h.exact = [](const mixer::Program& q) { return exact_of(q); };
  const mixer::Program p = mixer::parse_program("x ^= x >> 3; x *= 0x3b; x ^= x >> 2; x *= 0x19; x ^= x >> 4;", {8});
  LocalSearch singles(p, exact_of(p).chi2, {});
  singles.run(jit_ev(), h);
  ASSERT_TRUE(singles.done());
  const mixer::Program optimum = singles.centre();
  // The test means something only if a pair beats the single moves' optimum.
  double best_pair = std::numeric_limits<double>::infinity();
  for (const mixer::Program& q : pair_neighbours(optimum)) best_pair = std::min(best_pair, exact_of(q).chi2);
  ASSERT_LT(best_pair, singles.centre_chi2())
      << "choose another start: no pair beats " << mixer::format_program(optimum);

  LocalSearchOptions o;
  o.pairs = true;
  LocalSearch both(optimum, singles.centre_chi2(), o);
  both.run(jit_ev(), h);
  ASSERT_TRUE(both.done());
  EXPECT_LT(both.centre_chi2(), singles.centre_chi2());
  EXPECT_GE(both.counters().improvements, 1u);
  for (const mixer::Program& q : neighbours(both.centre()))
    EXPECT_GE(exact_of(q).chi2, both.centre_chi2()) << mixer::format_program(q);
  for (const mixer::Program& q : pair_neighbours(both.centre()))
    EXPECT_GE(exact_of(q).chi2, both.centre_chi2()) << mixer::format_program(q);
}

namespace {
// Stages cheap enough for a test at 24 bits; clear moves are those 3 standard errors lower.
LocalSearchOptions decisive_options() {
  LocalSearchOptions o;
  o.first_samples = 1u << 14;
  o.max_samples = 1u << 18;
  o.decisive_z = 3;
  return o;
}
}  // namespace

// Decisive moves (decisive_z): clear improvements move the centre without an exact score;
// the chain's end is scored when a score is next needed. Every reported move is still
// exactly better than the one before, with fewer exact scores than moves made.
TEST(LocalSearch, DecisiveMovesDeferTheirExactScore) {
  const mixer::Program p = start24();
  const double start = exact_of(p).chi2;
  const LocalSearchOptions o = decisive_options();
  Recorder r;
  const LocalSearchHooks h = r.hooks(3);
  auto& [moves, exact_calls] = r;
  LocalSearch s(p, start, o);
  s.run(jit_ev(), h);
  const LocalSearchCounters& c = s.counters();
  ASSERT_GE(moves.size(), 1u);
  EXPECT_GE(c.decisive_moves, 1u) << "no move of this poor start was clear at 2^18 samples";
  EXPECT_EQ(c.exact_scored, static_cast<std::uint64_t>(exact_calls));
  EXPECT_LT(c.exact_scored, c.decisive_moves + c.improvements);
  double prev = start;
  for (const auto& [q, chi2] : moves) {
    EXPECT_LT(chi2, prev);
    EXPECT_DOUBLE_EQ(chi2, jit_ev().exact(q).chi2);
    prev = chi2;
  }
  EXPECT_EQ(s.settled(), moves.back().first);
  EXPECT_DOUBLE_EQ(s.centre_chi2(), moves.back().second);
}

// A deferred exact score that does not beat the last exact centre sends the search back
// there. The exact hook here calls every program but the start worse than it: each chain
// of clear moves is undone, and the search ends at the start, never reporting a move.
TEST(LocalSearch, ADeferredScoreThatLosesGoesBack) {
  const mixer::Program p = start24();
  const double start = exact_of(p).chi2;
  const LocalSearchOptions o = decisive_options();
  LocalSearchHooks h;
  h.exact = [&](const mixer::Program& q) {
    Estimate e = exact_of(q);
    if (q != p) e.chi2 = 2 * start;
    return e;
  };
  int reported = 0;
  h.improved = [&](const mixer::Program&, const Estimate&) {
    ++reported;
    return true;
  };
  LocalSearch s(p, start, o);
  s.run(jit_ev(), h);
  ASSERT_TRUE(s.done());
  EXPECT_GE(s.counters().reverted, 1u);
  EXPECT_EQ(reported, 0);
  EXPECT_EQ(s.centre(), p);
  EXPECT_EQ(s.settled(), p);
  EXPECT_DOUBLE_EQ(s.centre_chi2(), start);
}
