#include "app/polish.hpp"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cmath>
#include <stdexcept>

#include "app/program_input.hpp"
#include "app/request_error.hpp"
#include "avalanche/stats/chi_square.hpp"
#include "avalanche/counts.hpp"
#include "avalanche/count/exact_counter.hpp"
#include "mixer/text_form.hpp"

namespace mixforge::app {

namespace {
void check_polish_width(const mixer::Program& program, const std::string& width_field) {
  if (program.width() > evolver::climb_max_width)
    throw RequestError(width_field, "evaluation-too-costly",
                       "polishing scores programs exactly: it needs a width of at most " +
                           std::to_string(evolver::climb_max_width) + " bits, not " + std::to_string(program.width()));
}
}  // namespace

PolishPlan plan_polish(const PolishRequest& r) {
  if (r.seconds && !(std::isfinite(*r.seconds) && *r.seconds > 0))
    throw RequestError("seconds", "out-of-range", "must be a finite number of seconds > 0");
  ProgramRules rules;
  rules.width = r.width;
  rules.field = r.field;
  PolishPlan plan{program_from_document(r.program, rules).program, r.seconds};
  try {
    plan.move_order = evolver::parse_move_order(r.move_order);
  } catch (const std::invalid_argument& e) {
    throw RequestError("move_order", "out-of-range", e.what());
  }
  check_polish_width(plan.program, "width");
  return plan;
}

double interpreted_exact_chi2(const mixer::Program& program) {
  return avalanche::score(avalanche::interpreted_counts_exact(program)).chi2;
}

PolishResult polish(const avalanche::Evaluator& evaluator, const PolishPlan& plan, const std::atomic<bool>* stop,
                    const PolishProgress& progress) {
  const auto t0 = std::chrono::steady_clock::now();
  auto seconds = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  PolishResult out;
  out.start = out.best = plan.program;
  auto exact = [&](const mixer::Program& q) { return avalanche::score(evaluator.counts_exact(q, stop)).chi2; };
  auto check = [&](const mixer::Program& q) {
    return avalanche::score(avalanche::interpreted_counts_exact(q, stop)).chi2;
  };
  try {
    out.start_chi2 = out.best_chi2 = exact(plan.program);
    out.scored = 1;
    evolver::ClimbOptions options;
    options.order = plan.move_order;
    evolver::Climb climb(plan.program, out.start_chi2, options);
    evolver::ClimbHooks hooks;
    hooks.keep_going = [&] { return !(stop && stop->load()) && !(plan.seconds && seconds() >= *plan.seconds); };
    hooks.progress = [&](const evolver::Climb& c, const evolver::ClimbStep& s) {
      out.best = c.centre();
      out.best_chi2 = c.centre_chi2();
      out.moves = c.moves();
      out.scored = 1 + c.scored();
      if (progress) progress(c, s, seconds());
    };
    out.local_optimum = evolver::run_climb(climb, exact, check, hooks);
  } catch (const avalanche::EvaluationCancelled&) {
    // A stop request: the climb ends at the last centre.
  }
  out.seconds = seconds();
  return out;
}

namespace {
nlohmann::json function_json(const mixer::Program& p, double chi2) {
  return {{"text", mixer::format_program(p)},
          {"short", mixer::format_short(p)},
          {"id", p.id()},
          {"width", p.width()},
          {"chi2_exact", chi2},
          {"bias", avalanche::bias_from_chi2(chi2, p.width())}};
}
}  // namespace

nlohmann::json to_json(const PolishResult& r) {
  return {{"start", function_json(r.start, r.start_chi2)},
          {"best", function_json(r.best, r.best_chi2)},
          {"moves", r.moves},
          {"scored", r.scored},
          {"seconds", r.seconds},
          {"local_optimum", r.local_optimum}};
}

}  // namespace mixforge::app
