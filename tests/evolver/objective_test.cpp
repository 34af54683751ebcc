// The run's optional objective (evolver/search/objective.hpp): its configuration, the
// normalisation of its terms, the ranking by the total, and a run that uses it.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <thread>

#include <nlohmann/json.hpp>

#include "avalanche/evaluator.hpp"
#include "evolver/run/run.hpp"
#include "evolver/search/objective.hpp"
#include "evolver/search/pool.hpp"
#include "evolver/search/run_config.hpp"
#include "evolver/run/run_types.hpp"
#include "evolver/run/run_types_json.hpp"
#include "mixer/text_form.hpp"

using namespace mixforge;
using namespace mixforge::evolver;

namespace {

std::string field_of(const nlohmann::json& j) {
  try {
    run_config_from_json(j);
  } catch (const ConfigError& e) {
    return e.field();
  }
  return "(accepted)";
}

// splitmix64's finalizer keyed and cut to the width: as good as an ideal random function
// for these measures.
avalanche::BatchFunction ideal(int width) {
  return [width](const std::uint64_t* in, std::uint64_t* out, std::size_t n) {
    for (std::size_t k = 0; k < n; ++k) {
      std::uint64_t z = in[k] + 0x9e3779b97f4a7c15ull;
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
      out[k] = (z ^ (z >> 31)) & ((std::uint64_t{1} << width) - 1);
    }
  };
}

const char* const lowbias32 = "x ^= x >> 16; x *= 0x7feb352d; x ^= x >> 15; x *= 0x846ca68b; x ^= x >> 16;";
const char* const triple32 =
    "x ^= x >> 17; x *= 0xed5ad4bb; x ^= x >> 11; x *= 0xac4c1b51; x ^= x >> 15; x *= 0x31848bab; x ^= x >> 14;";

}  // namespace

TEST(ObjectiveConfig, DefaultsAreOffAndRoundTrip) {
  const RunConfig c = run_config_from_json(nlohmann::json::object());
  EXPECT_FALSE(c.objective.enabled());
  EXPECT_EQ(c.objective, ObjectiveConfig{});
  const RunConfig d =
      run_config_from_json({{"objective", {{"bic_weight", 2.5}, {"higher_order_weight", 0.5}, {"samples", 4096}}}});
  EXPECT_TRUE(d.objective.enabled());
  EXPECT_EQ(d.objective.bic_weight, 2.5);
  EXPECT_EQ(d.objective.higher_order_weight, 0.5);
  EXPECT_EQ(d.objective.samples, 4096u);
  EXPECT_EQ(run_config_from_json(to_json(d)).objective, d.objective);
  EXPECT_EQ(to_json(d)["objective"]["bic_weight"], 2.5);
}

TEST(ObjectiveConfig, BadWeightsNameTheField) {
  EXPECT_EQ(field_of({{"objective", {{"bic_weight", -1}}}}), "objective.bic_weight");
  EXPECT_EQ(field_of({{"objective", {{"higher_order_weight", -0.5}}}}), "objective.higher_order_weight");
  EXPECT_EQ(field_of({{"objective", {{"bic_weight", "1"}}}}), "objective.bic_weight");
  EXPECT_EQ(field_of({{"objective", {{"samples", 0}}}}), "objective.samples");
  EXPECT_EQ(field_of({{"objective", {{"weight", 1}}}}), "objective");
  // Not JSON, but a configuration built from the CLI's flags can carry them.
  EXPECT_EQ(field_of({{"objective", {{"bic_weight", std::numeric_limits<double>::quiet_NaN()}}}}),
            "objective.bic_weight");
  EXPECT_EQ(field_of({{"objective", {{"higher_order_weight", std::numeric_limits<double>::infinity()}}}}),
            "objective.higher_order_weight");
  try {
    run_config_from_json({{"objective", {{"bic_weight", -1}}}});
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("objective.bic_weight"), std::string::npos) << e.what();
  }
}

TEST(ObjectiveTerms, AnIdealFunctionScoresAboutZero) {
  ObjectiveConfig o{1, 1, 1u << 12};
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    const ObjectiveTerms t = objective_terms(ideal(32), 32, o, seed);
    EXPECT_FALSE(t.bic_exact);
    EXPECT_GT(t.bic_stderr, 0);
    EXPECT_LT(std::fabs(t.bic), 4 * t.bic_stderr) << t.bic << " +- " << t.bic_stderr;
    EXPECT_LT(std::fabs(t.higher_order), 4 * t.higher_order_stderr)
        << t.higher_order << " +- " << t.higher_order_stderr;
    EXPECT_EQ(t.penalty, std::max(t.bic, 0.0) + std::max(t.higher_order, 0.0));
  }
  // From 2^(n-1) inputs per bit the bic term is counted exactly: no noise correction.
  const ObjectiveTerms e = objective_terms(ideal(8), 8, {1, 0, 1u << 7}, 1);
  EXPECT_TRUE(e.bic_exact);
  EXPECT_EQ(e.bic_stderr, 0);
  EXPECT_GT(e.bic, 0);
  EXPECT_EQ(e.higher_order, 0);  // weight 0: not computed
}

TEST(ObjectiveTerms, SeeLowbias32sCoupledPairAndTriple32sIndependence) {
  const ObjectiveConfig o{1, 1, 1u << 12};
  const ObjectiveTerms lb = objective_terms(avalanche::interpreted_function(mixer::parse_program(lowbias32)), 32, o, 5);
  const ObjectiveTerms t3 = objective_terms(avalanche::interpreted_function(mixer::parse_program(triple32)), 32, o, 5);
  // Input bit 15 moves output bits 0 and 16 together (c = -1): 1 / (n - 1) by itself.
  EXPECT_GT(lb.bic, 1.0 / 31);
  EXPECT_GT(lb.bic, 100 * lb.bic_stderr);
  EXPECT_LT(std::fabs(t3.bic), 4 * t3.bic_stderr);
  // The same inputs give the same terms.
  EXPECT_EQ(objective_terms(avalanche::interpreted_function(mixer::parse_program(lowbias32)), 32, o, 5), lb);
}

// The pool, the tournaments and the best follow Estimate::rank(): chi2 plus the penalty.
TEST(ObjectiveRanking, TheTotalDecidesWhenTheObjectiveIsOn) {
  const ObjectiveConfig o{1, 0, 1u << 12};
  const mixer::Program coupled = mixer::parse_program(lowbias32), independent = mixer::parse_program(triple32);
  const ObjectiveTerms tc = objective_terms(avalanche::interpreted_function(coupled), 32, o, 9);
  const ObjectiveTerms ti = objective_terms(avalanche::interpreted_function(independent), 32, o, 9);
  // lowbias32's exact chi2 against a worse one given to the independent function.
  const Estimate low{1.5418e-5, 0, std::uint64_t{1} << 32, true};
  const Estimate worse{4e-5, 0, std::uint64_t{1} << 32, true};
  for (bool on : {false, true}) {
    Pool pool;
    Member a{coupled, coupled.hash(), low, 0}, b{independent, independent.hash(), worse, 0};
    if (on) {
      a.objective = tc;
      a.estimate.penalty = tc.penalty;
      b.objective = ti;
      b.estimate.penalty = ti.penalty;
    }
    pool.insert(a);
    pool.insert(b);
    EXPECT_EQ(pool[pool.best()].hash, on ? independent.hash() : coupled.hash()) << "objective " << on;
    ScoredFunction fa = scored_function(a);
    EXPECT_EQ(fa.rank(), a.estimate.rank());
    EXPECT_EQ(fa.chi2, 1.5418e-5);  // the avalanche term stays the exact chi2
    const nlohmann::json j = to_json(fa);
    EXPECT_EQ(j.contains("objective"), on);
    if (on) {
      EXPECT_DOUBLE_EQ(j["objective"]["total"].get<double>(), 1.5418e-5 + tc.penalty);
      EXPECT_EQ(scored_function_from_json(j).objective, fa.objective);
    }
  }
}

// A short 16-bit run (exact avalanche, one thread) with the objective on: every pool
// member carries its terms, the best's total is the lowest anywhere, and a checkpoint
// (which keeps no terms) resumes with the same terms measured again.
TEST(ObjectiveRun, MembersCarryTheirTermsAndTheBestHasTheLowestTotal) {
  const auto ev = avalanche::Evaluator::with_own_engine();
  RunConfig c;
  c.width = 16;
  c.max_steps = 5;
  c.pool_size = 40;
  c.seed = 3;
  c.threads = 1;
  c.budget.tournaments = 150;
  c.objective = {1, 1, 1u << 12};
  Checkpoint cp;
  {
    evolver::Run run("objective", c, *ev);
    run.start(c.budget);
    run.wait();
    ASSERT_EQ(run.error(), "");
    cp = run.snapshot();
  }
  ASSERT_TRUE(cp.best && cp.best->objective);
  EXPECT_TRUE(cp.best->estimate.exact);  // the avalanche term is the exact chi2
  ASSERT_FALSE(cp.pool.empty());
  for (const Member& m : cp.pool) {
    ASSERT_TRUE(m.objective) << m.program.id();
    EXPECT_EQ(m.estimate.penalty, m.objective->penalty);
    EXPECT_EQ(m.objective->penalty, std::max(m.objective->bic, 0.0) + std::max(m.objective->higher_order, 0.0));
    EXPECT_LE(cp.best->estimate.rank(), m.estimate.rank());
    EXPECT_EQ(*m.objective, objective_terms(ev->batch_function(m.program), 16, c.objective, objective_seed(c.seed)));
  }
  const auto hof = scored_function(*cp.best);
  EXPECT_EQ(hof.objective, cp.best->objective);

  Checkpoint stored = cp;  // as the store gives it back: no terms
  for (Member& m : stored.pool) {
    m.objective.reset();
    m.estimate.penalty = 0;
  }
  stored.best->objective.reset();
  stored.best->estimate.penalty = 0;
  evolver::Run resumed("objective", c, *ev, stored);
  const Checkpoint again = resumed.snapshot();
  ASSERT_EQ(again.pool.size(), cp.pool.size());
  for (std::size_t i = 0; i < cp.pool.size(); ++i) EXPECT_EQ(again.pool[i], cp.pool[i]) << i;
  EXPECT_EQ(again.best, cp.best);
}

// The RRC term (issue 51): rrc_weight per doubling of depth short of the cap.
TEST(ObjectiveConfig, RrcFieldsRoundTripAndBadOnesNameTheField) {
  const RunConfig d =
      run_config_from_json({{"objective", {{"rrc_weight", 1e-6}, {"rrc_cap_log2", 18}, {"rrc_chi2_bound", 2e-5}}}});
  EXPECT_TRUE(d.objective.enabled());
  EXPECT_EQ(d.objective.rrc_cap_log2, 18);
  EXPECT_EQ(run_config_from_json(to_json(d)).objective, d.objective);
  EXPECT_EQ(run_config_from_json(nlohmann::json::object()).objective.rrc_cap_log2, 20);
  EXPECT_EQ(field_of({{"objective", {{"rrc_weight", -1}}}}), "objective.rrc_weight");
  EXPECT_EQ(field_of({{"objective", {{"rrc_cap_log2", 10}}}}), "objective.rrc_cap_log2");
  EXPECT_EQ(field_of({{"objective", {{"rrc_cap_log2", 41}}}}), "objective.rrc_cap_log2");
  EXPECT_EQ(field_of({{"objective", {{"rrc_chi2_bound", -1e-5}}}}), "objective.rrc_chi2_bound");
  EXPECT_EQ(field_of({{"width", 7}, {"objective", {{"rrc_weight", 1}}}}), "objective.rrc_weight");
  EXPECT_EQ(field_of({{"width", 8}, {"objective", {{"rrc_weight", 1}}}}), "(accepted)");
}

TEST(ObjectiveTerms, RrcTermCountsTheDoublingsShortOfTheCap) {
  ObjectiveConfig o;
  o.rrc_weight = 2;
  o.rrc_cap_log2 = 16;
  const auto ev = avalanche::Evaluator::with_own_engine();
  auto terms = [&](const char* text, std::optional<double> chi2 = std::nullopt) {
    const mixer::Program p = mixer::parse_program(text);
    return objective_terms(ev->batch_function(p), 32, o, 1, nullptr, chi2);
  };
  // lowbias32 fails at 2^12 (the published depth): it passed 2^11, 5 doublings short.
  const ObjectiveTerms lb = terms(lowbias32);
  EXPECT_EQ(lb.rrc_cap_log2, 16);
  EXPECT_EQ(lb.rrc_depth_log2, 12);
  EXPECT_FALSE(lb.rrc_passed_cap);
  EXPECT_EQ(lb.penalty, 2 * 5);
  // triple32 passes the cap: no penalty.
  const ObjectiveTerms t3 = terms(triple32);
  EXPECT_TRUE(t3.rrc_passed_cap);
  EXPECT_EQ(t3.rrc_depth_log2, 16);
  EXPECT_EQ(t3.penalty, 0);
  // Above the chi2 bound nothing is measured: it counts as failing at the first length.
  o.rrc_chi2_bound = 1e-5;
  const ObjectiveTerms above = terms(lowbias32, 1.5418e-5);
  EXPECT_EQ(above.rrc_depth_log2, 0);
  EXPECT_EQ(above.penalty, 2 * (16 - 9));
  EXPECT_EQ(terms(triple32, 2.234e-7).penalty, 0);
  // The wire form carries the depth (null when not measured) and reads back.
  const nlohmann::json j = to_json(above, 1.5418e-5);
  EXPECT_TRUE(j["rrc_depth_log2"].is_null());
  EXPECT_EQ(j["rrc_cap_log2"], 16);
  EXPECT_EQ(objective_terms_from_json(j), above);
  EXPECT_EQ(objective_terms_from_json(to_json(lb, 1.5418e-5)), lb);
  EXPECT_FALSE(to_json(ObjectiveTerms{}, 0).contains("rrc_cap_log2"));  // no RRC term, no fields
}

// A sampled run's RRC chi2 bound is first judged on the sampled estimate, which at few
// samples scatters far around the exact chi2: a leader whose estimate was above the bound
// entered unmeasured. Once the ranker scores it exactly under the bound, its depth must be
// measured (a 32-bit run once went 14 minutes with every leader counted as failing at 2^10).
// The run resumes a checkpoint whose members are known 20-bit programs (exact chi2 under
// the bound) with sampled estimates that scattered above it, as a store would give them.
TEST(ObjectiveRun, ALeaderScoredExactlyUnderTheBoundHasItsDepthMeasured) {
  const auto ev = avalanche::Evaluator::with_own_engine();
  RunConfig c;
  c.width = 20;  // above exact_max_width: sampled, with exact leaders (2^20 inputs: quick)
  c.precision.exact_max_width = 16;
  c.max_steps = 5;
  c.pool_size = 16;
  c.seed = 5;
  c.threads = 1;
  c.precision.initial_samples = 1024;
  c.precision.max_samples = 1024;
  c.precision.leaders = 4;
  c.precision.leader_interval = 1000;
  c.precision.exact_max_seconds = 1e9;
  c.objective.rrc_weight = 1e-9;  // too small to steer: the test is about measuring
  c.objective.rrc_cap_log2 = 12;
  c.objective.rrc_chi2_bound = 0.05;
  c.budget.seconds = 120;
  // Without the ranker's local search, whose improvements would become the best within
  // a poll of the first exact leader: the exact best is then always a ranked leader.
  c.local_search.enabled = false;
  Checkpoint from;
  from.current_samples = 1024;
  from.next_leader_at = 0;  // rank the leaders at the first step
  std::vector<std::uint64_t> seeded;
  std::mt19937_64 rng(7);
  while (from.pool.size() < c.pool_size) {
    const std::uint64_t k1 = (rng() & 0xfffff) | 1, k2 = (rng() & 0xfffff) | 1;
    char text[96];
    std::snprintf(text, sizeof text, "x ^= x >> 10; x *= 0x%05llx; x ^= x >> 9; x *= 0x%05llx; x ^= x >> 10;",
                  static_cast<unsigned long long>(k1), static_cast<unsigned long long>(k2));
    const mixer::Program p = mixer::parse_program(text, mixer::ParseOptions{20});
    if (ev->exact(p).chi2 >= c.objective.rrc_chi2_bound / 2) continue;  // known to be under the bound
    Member m{p, p.hash(), Estimate{0.5, 0.1, 1024, false}};
    m.objective = objective_terms(ev->batch_function(p), c.width, c.objective, objective_seed(c.seed), nullptr, 0.5);
    ASSERT_EQ(m.objective->rrc_depth_log2, 0) << "above the bound: not measured";
    m.estimate.penalty = m.objective->penalty;
    seeded.push_back(m.hash);
    from.pool.push_back(std::move(m));
  }
  evolver::Run run("rrc-leaders", c, *ev, from);
  run.start(c.budget);
  // Until the ranker has scored a leader exactly: the first leaders are all seeded, and an
  // exact score becomes the run's best (the pool keeps its estimates).
  auto exact_best = [&]() -> std::optional<Member> {
    std::optional<Member> best = run.snapshot().best;
    if (best && best->estimate.exact) return best;
    return std::nullopt;
  };
  while (!run.done() && !exact_best()) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  run.request_stop();
  ASSERT_TRUE(run.wait(600));
  ASSERT_EQ(run.error(), "");
  const std::optional<Member> best = exact_best();
  ASSERT_TRUE(best) << "the ranker never scored a leader exactly: the test tests nothing";
  ASSERT_NE(std::find(seeded.begin(), seeded.end(), best->hash), seeded.end()) << best->program.id();
  ASSERT_LE(best->estimate.chi2, c.objective.rrc_chi2_bound);
  ASSERT_TRUE(best->objective);
  EXPECT_GE(best->objective->rrc_depth_log2, 10) << best->program.id() << " exact chi2 " << best->estimate.chi2;
  EXPECT_EQ(*best->objective, objective_terms(ev->batch_function(best->program), c.width, c.objective,
                                              objective_seed(c.seed), nullptr, best->estimate.chi2));
  EXPECT_EQ(best->estimate.penalty, best->objective->penalty);
}
