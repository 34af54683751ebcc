// mixforge polish: the exact climb from a program (app/polish.hpp), with a line of progress
// as it goes and, with --json, one JSON object as the last line.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "app/polish.hpp"
#include "cli/commands.hpp"
#include "cli/program_input.hpp"
#include "mixer/text_form.hpp"

namespace mixforge::cli {
namespace {

std::atomic<bool> g_polish_stop{false};  // the one process-wide fact a signal handler may set

extern "C" void on_polish_signal(int sig) {
  g_polish_stop.store(true);
  std::signal(sig, SIG_DFL);  // a second Ctrl-C ends the process at once
}

struct PolishOptions {
  std::string program;
  std::optional<int> width;
  std::optional<double> seconds;
  std::string move_order = "informed";
  bool json = false;
};

void run(const PolishOptions& o) {
  app::PolishRequest request;
  request.program = read_program_argument(o.program);
  request.width = o.width;
  request.seconds = o.seconds;
  request.move_order = o.move_order;
  const app::PolishPlan plan = app::plan_polish(request);
  const auto evaluator = avalanche::Evaluator::with_own_engine();
  g_polish_stop.store(false);
  std::signal(SIGINT, on_polish_signal);
  std::signal(SIGTERM, on_polish_signal);
  const std::string order(evolver::move_order_name(plan.move_order));
  if (plan.seconds)
    std::printf("polish %s (%d bits, %s move order), at most %g s\n", mixer::format_short(plan.program).c_str(),
                plan.program.width(), order.c_str(), *plan.seconds);
  else
    std::printf("polish %s (%d bits, %s move order)\n", mixer::format_short(plan.program).c_str(), plan.program.width(),
                order.c_str());
  std::fflush(stdout);
  double last_line = -1;
  bool started = false;
  const app::PolishResult r =
      app::polish(*evaluator, plan, &g_polish_stop,
                  [&](const evolver::Climb& c, const evolver::ClimbStep& s, double t) {
                    if (!started) {
                      std::printf("start   exact chi2 %.10g\n", c.start_chi2());
                      started = true;
                    }
                    // Every step at 32 bits (seconds each); at small widths one line a second and every move.
                    if (s.lower || t - last_line >= 1) {
                      std::printf("%7.1fs %s %zu/%zu %s  exact chi2 %.10g  (%llu scored, %llu moves)\n", t,
                                  s.pair ? "two" : "one", s.index, s.count, mixer::format_short(s.program).c_str(),
                                  s.chi2, static_cast<unsigned long long>(c.scored() + 1),
                                  static_cast<unsigned long long>(c.moves()));
                      last_line = t;
                    }
                    if (s.moved)
                      std::printf("%7.1fs move to %s  exact chi2 %.10g (the interpreter agrees)\n", t,
                                  mixer::format_short(s.program).c_str(), s.chi2);
                    else if (s.lower)
                      std::printf("%7.1fs not moved: the interpreter scores it %.10g\n", t, *s.check);
                    std::fflush(stdout);
                  });
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  std::printf("best    %s  exact chi2 %.10g (start %.10g, %.3f %% lower)\n", mixer::format_short(r.best).c_str(),
              r.best_chi2, r.start_chi2, r.start_chi2 > 0 ? 100 * (1 - r.best_chi2 / r.start_chi2) : 0.0);
  std::printf("        %llu moves, %llu exact scores, %.1f s, %s\n", static_cast<unsigned long long>(r.moves),
              static_cast<unsigned long long>(r.scored), r.seconds,
              r.local_optimum ? "a local optimum of one and two moves"
                              : (g_polish_stop.load() ? "stopped" : "time limit reached: not a local optimum yet"));
  if (o.json) std::printf("%s\n", app::to_json(r).dump().c_str());
  std::fflush(stdout);
}

}  // namespace

void add_polish_command(CLI::App& app) {
  auto o = std::make_shared<PolishOptions>();
  CLI::App* cmd = app.add_subcommand(
      "polish",
      "Exact first-improvement local search from PROGRAM: every shift +-1 and single-bit flip of a constant, "
      "then every pair of them, scored exactly (all 2^n inputs); the first lower program, checked by the "
      "reference interpreter, becomes the centre. Ends at a local optimum of one and two moves or after --seconds");
  cmd->add_option("program", o->program, "program text, a file holding it, or - for stdin")->required();
  cmd->add_option("--width", o->width, "the program's width (default: its mask's, else 32)");
  cmd->add_option("--seconds", o->seconds, "stop after this many seconds (default: at the local optimum)");
  cmd->add_option("--move-order", o->move_order,
                  "informed (default): the single moves likeliest to be lower first (a multiplier's top bits, "
                  "outer shifts), learned from the climb's own scores; fixed: shifts, then each constant's bits "
                  "from the lowest")
      ->check(CLI::IsMember({"informed", "fixed"}));
  cmd->add_flag("--json", o->json,
                "last stdout line: {\"start\", \"best\": {\"text\", \"chi2_exact\", ...}, "
                "\"moves\", \"scored\", \"seconds\", \"local_optimum\"}");
  cmd->callback([o] { run(*o); });
}

}  // namespace mixforge::cli
