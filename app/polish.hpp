#pragma once
// The polish use case (issue 52): the exact climb (evolver/search/climb.hpp) from a user's
// program, until a local optimum of one and two moves or a time limit (`mixforge polish`).
// The program is read by app/program_input's rules and must be exactly scorable (at most
// climb_max_width bits); refusals are RequestErrors naming "program", "width" or "seconds".
// The daemon's form of a polish is a run with seed_programs: those are checked by the run
// configuration's rules (evolver/search/run_config.cpp, "seed_programs[i]"), against the
// same climb_max_width, and climbed by the same Climb inside the run.
#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "avalanche/evaluator.hpp"
#include "evolver/search/climb.hpp"
#include "mixer/program.hpp"

namespace mixforge::app {

struct PolishRequest {
  std::string program;            // program text (or the JSON form)
  std::optional<int> width;       // given beside it
  std::optional<double> seconds;  // the time limit; none: until a local optimum
  std::string field = "program";  // where the program sits in the request
  std::string move_order = "informed";  // the single moves' order: "informed" or "fixed"
};

struct PolishPlan {
  mixer::Program program;
  std::optional<double> seconds;
  evolver::MoveOrder move_order = evolver::MoveOrder::informed;
};

// Throws RequestError naming field (not a program), "width" (differs from the program's,
// or wider than an exact score allows), "seconds" (not a finite number > 0) or
// "move_order" (neither "informed" nor "fixed").
PolishPlan plan_polish(const PolishRequest& request);

struct PolishResult {
  mixer::Program start;
  double start_chi2 = 0;
  mixer::Program best;
  double best_chi2 = 0;
  std::uint64_t moves = 0;   // centres moved to
  std::uint64_t scored = 0;  // exact scores computed (the start's included)
  double seconds = 0;
  bool local_optimum = false;  // else stopped: the time limit or a stop request
};

// One line per progress report: the step, the climb after it, seconds since the start.
using PolishProgress = std::function<void(const evolver::Climb&, const evolver::ClimbStep&, double seconds)>;

// Runs the climb. Every lower program is checked by the reference interpreter
// (avalanche/count/exact_counter.hpp) before the climb moves there. stop (may be null): once
// set, the exact score in flight is dropped and the climb ends where it is.
PolishResult polish(const avalanche::Evaluator& evaluator, const PolishPlan& plan, const std::atomic<bool>* stop,
                    const PolishProgress& progress = {});

// {"start": {...}, "best": {"text", "short", "id", "width", "chi2_exact", "bias"},
//  "moves", "scored", "seconds", "local_optimum"}
nlohmann::json to_json(const PolishResult& result);

// The reference interpreter's exact chi2 (the climb's check).
double interpreted_exact_chi2(const mixer::Program& program);

}  // namespace mixforge::app
