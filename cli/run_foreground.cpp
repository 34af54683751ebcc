#include "cli/run_foreground.hpp"

#include <nlohmann/json.hpp>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "evolver/run/run_types_json.hpp"
#include "mixer/text_form.hpp"
#include "evolver/store/stored_objective.hpp"

namespace mixforge::cli {
namespace {

std::atomic<int> g_signal{0};  // the one process-wide fact a signal handler may set

extern "C" void on_stop_signal(int sig) {
  g_signal.store(sig);
  std::signal(sig, SIG_DFL);  // a second Ctrl-C ends the process at once
}

std::string human_rate(double r) {
  char b[32];
  if (r >= 1e6)
    std::snprintf(b, sizeof b, "%.2fM", r / 1e6);
  else if (r >= 1e4)
    std::snprintf(b, sizeof b, "%.1fk", r / 1e3);
  else
    std::snprintf(b, sizeof b, "%.0f", r);
  return b;
}

void print_progress(const evolver::Progress& p) {
  char line[256];
  std::string best = "-";
  if (p.best) {
    char b[96];
    std::snprintf(b, sizeof b, "%.6g%s bias %.4g", p.best->chi2, p.best->exact ? " exact" : " est",
                  p.best->bias);
    best = b;
  }
  // Runs with seed programs: how far their climbs are (moves, and how many are at a local optimum).
  std::string climbs;
  if (!p.climbs.empty()) {
    std::uint64_t moves = 0;
    std::size_t done = 0;
    for (const evolver::ClimbStatus& c : p.climbs) {
      moves += c.moves;
      done += c.done ? 1 : 0;
    }
    climbs = "  climbs " + std::to_string(done) + "/" + std::to_string(p.climbs.size()) + " done, " +
             std::to_string(moves) + " moves";
  }
  std::snprintf(line, sizeof line, "\r%7.1fs  %s tourn/s  %s scored/s  reject %4.1f%%  N=%s  best %s%s   ",
                p.counters.elapsed_s, human_rate(p.tournaments_per_s).c_str(), human_rate(p.scored_per_s).c_str(),
                100 * p.early_reject_rate, p.current_samples ? std::to_string(p.current_samples).c_str() : "exact",
                best.c_str(), climbs.c_str());
  std::fputs(line, stderr);
  std::fflush(stderr);
}

}  // namespace

std::string climb_line(const evolver::ClimbStatus& c) {
  std::string out = "climb " + std::to_string(c.seed + 1) + ": ";
  if (!c.centre) return out + "from " + mixer::format_short(c.start) + ", its exact score not taken yet";
  char chi2[64];
  std::snprintf(chi2, sizeof chi2, " chi2 %.10g (exact), ", c.chi2_exact);
  out += mixer::format_short(*c.centre) + chi2 + std::to_string(c.moves) + (c.moves == 1 ? " move, " : " moves, ") +
         std::to_string(c.scored) + " exact scores, ";
  if (c.done) return out + "local optimum of one and two moves";
  return out + (c.pairs ? "pairs " : "single moves ") + std::to_string(c.position) + "/" +
         std::to_string(c.neighbourhood) + " around it";
}

std::string data_directory(const std::string& option) {
  if (!option.empty()) return option;
  if (const char* env = std::getenv("MIXFORGE_DATA"); env && *env) return env;
  return "mixforge-data";
}

int run_in_foreground(evolver::RunManager& manager, const std::string& run_id,
                      const ForegroundOptions& options) {
  g_signal.store(0);
  std::signal(SIGINT, on_stop_signal);
  std::signal(SIGTERM, on_stop_signal);
  const bool tty = ::isatty(STDERR_FILENO);
  bool stopped_by_signal = false;
  while (!manager.wait(run_id, 0.5)) {
    if (g_signal.load()) {
      if (tty) std::fputs("\nstopping after a final checkpoint...\n", stderr);
      try {
        manager.stop(run_id);
      } catch (const evolver::RunStateError&) {
        // It finished (or failed) on its own meanwhile: nothing left to stop.
      }
      stopped_by_signal = true;
      break;
    }
    if (tty) print_progress(manager.progress(run_id));
  }
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  if (tty) std::fputs("\n", stderr);

  const evolver::RunSummary s = manager.get(run_id);
  auto best = manager.leaders(run_id, static_cast<std::size_t>(options.top));
  evolver::measure_objective(best, s.config);  // stored functions keep no terms
  if (!options.json) {
    std::cout << "run " << run_id << " " << evolver::state_name(s.state) << " after "
              << s.counters.tournaments << " tournaments, " << s.counters.scored << " scored, "
              << s.counters.elapsed_s << " s\n";
    for (std::size_t i = 0; i < best.size(); ++i) {
      const auto& f = best[i];
      char head[160];
      if (f.exact)
        std::snprintf(head, sizeof head, "#%zu  chi2 %.10g (exact)  bias %.6g  id %s", i + 1, f.chi2, f.bias,
                      f.id.c_str());
      else
        std::snprintf(head, sizeof head, "#%zu  chi2 %.6g +- %.2g (N=%llu, not exact)  id %s", i + 1, f.chi2,
                      f.chi2_stderr, static_cast<unsigned long long>(f.samples), f.id.c_str());
      std::cout << "\n" << head << "\n" << objective_line(f) << f.text << "\n";
    }
  } else {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& f : best) {
      nlohmann::json j = evolver::to_json(f);
      list.push_back(j);
    }
    nlohmann::json out = {{"run_id", run_id},
                          {"state", std::string(evolver::state_name(s.state))},
                          {"counters", evolver::to_json(s.counters)},
                          {"best", list}};
    std::cout << out.dump() << "\n";
  }
  std::cout.flush();
  if (s.state == evolver::RunState::failed) {
    std::cerr << "mixforge: run " << run_id << " failed: " << s.error << "\n";
    return 1;
  }
  (void)stopped_by_signal;  // a stop on request is a clean end
  return 0;
}

std::string objective_line(const evolver::ScoredFunction& f) {
  if (!f.objective) return {};
  const auto& t = *f.objective;
  char bic[64], line[256];
  if (t.bic_exact)
    std::snprintf(bic, sizeof bic, "%.4g exact", t.bic);
  else
    std::snprintf(bic, sizeof bic, "%.4g +- %.2g", t.bic, t.bic_stderr);
  std::string rrc;
  if (t.rrc_cap_log2 > 0)
    rrc = t.rrc_depth_log2 == 0
              ? ", RRC depth not measured (chi2 above the bound)"
              : ", RRC depth " + std::string(t.rrc_passed_cap ? ">" : "") + std::to_string(t.rrc_depth_log2) +
                    " (cap " + std::to_string(t.rrc_cap_log2) + ")";
  std::snprintf(line, sizeof line, "    objective: total %.6g = chi2 + %.6g (bic %s, higher order %.4g +- %.2g%s)\n",
                f.rank(), t.penalty, bic, t.higher_order, t.higher_order_stderr, rrc.c_str());
  return line;
}

}  // namespace mixforge::cli
