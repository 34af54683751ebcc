// mixforge runs: list, show, resume, dump, export and delete stored evolution runs.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <ctime>
#include <iostream>
#include <optional>

#include "cli/commands.hpp"
#include "cli/islands.hpp"
#include "cli/run_foreground.hpp"
#include "evolver/manager/run_manager.hpp"
#include "evolver/run/run_types_json.hpp"
#include "evolver/store/stored_objective.hpp"

namespace mixforge::cli {
namespace {

struct RunsOptions {
  std::string data;
  std::string id;
  bool json = false;
  bool interpreter = false;
  std::optional<double> seconds;
  std::optional<std::uint64_t> tournaments;
  int top = 5;
};


std::string when(double unix_s) {
  const std::time_t t = static_cast<std::time_t>(unix_s);
  char b[32];
  std::strftime(b, sizeof b, "%Y-%m-%d %H:%M:%S", std::gmtime(&t));
  return b;
}

template <class F>
void with_run(const RunsOptions& o, F&& f) {
  evolver::RunManager::Options mo;
  mo.data_dir = data_directory(o.data);
  mo.interpreter_only = o.interpreter;
  evolver::RunManager manager(mo);
  try {
    f(manager);
  } catch (const evolver::RunNotFound& e) {
    throw UsageError(e.what());
  } catch (const evolver::RunStateError& e) {
    throw UsageError(e.what());
  } catch (const evolver::ConfigError& e) {
    throw UsageError(e.what());
  }
}

void list(const RunsOptions& o) {
  with_run(o, [&](evolver::RunManager& m) {
    const auto runs = m.list();
    if (o.json) {
      nlohmann::json a = nlohmann::json::array();
      for (const auto& r : runs) a.push_back(evolver::to_json(r));
      std::cout << a.dump() << "\n";
      return;
    }
    std::printf("%-13s %-9s %5s %5s %12s %9s %-16s %s\n", "id", "state", "width", "steps", "tournaments",
                "elapsed", "best chi2", "created (UTC)");
    for (const auto& r : runs) {
      char best[32] = "-";
      if (r.best) std::snprintf(best, sizeof best, "%.6g%s", r.best->chi2, r.best->exact ? "" : "~");
      std::printf("%-13s %-9s %5d %5d %12llu %8.0fs %-16s %s\n", r.id.c_str(),
                  std::string(evolver::state_name(r.state)).c_str(), r.config.width, r.config.max_steps,
                  static_cast<unsigned long long>(r.counters.tournaments), r.counters.elapsed_s, best,
                  when(r.created_at).c_str());
    }
  });
}

void show(const RunsOptions& o) {
  with_run(o, [&](evolver::RunManager& m) {
    const auto r = m.get(o.id);
    auto leaders = m.leaders(o.id, static_cast<std::size_t>(o.top));
    evolver::measure_objective(leaders, r.config);  // stored functions keep no terms
    if (o.json) {
      nlohmann::json j = evolver::to_json(r);
      nlohmann::json l = nlohmann::json::array();
      for (const auto& f : leaders) l.push_back(evolver::to_json(f));
      j["leaders"] = l;
      std::cout << j.dump() << "\n";
      return;
    }
    std::cout << "run " << r.id << (r.name.empty() ? "" : " (" + r.name + ")") << "\n"
              << "state        " << evolver::state_name(r.state) << (r.error.empty() ? "" : ": " + r.error) << "\n"
              << "created      " << when(r.created_at) << " UTC, last checkpoint " << when(r.updated_at) << " UTC\n"
              << "width        " << r.config.width << ", steps " << r.config.min_steps << ".." << r.config.max_steps
              << ", pool " << r.config.pool_size << ", seed " << r.config.seed << "\n"
              << (r.config.objective.enabled()
                      ? "objective    chi2 + " + std::to_string(r.config.objective.bic_weight) + " * bic + " +
                            std::to_string(r.config.objective.higher_order_weight) + " * higher order (" +
                            std::to_string(r.config.objective.samples) + " samples)" +
                            (r.config.objective.rrc_weight > 0
                                 ? " + " + std::to_string(r.config.objective.rrc_weight) + " * RRC shortfall (cap 2^" +
                                       std::to_string(r.config.objective.rrc_cap_log2) + ")"
                                 : std::string()) +
                            "\n"
                      : std::string())
              << "tournaments  " << r.counters.tournaments << " (" << r.counters.removals << " removals)\n"
              << "scored       " << r.counters.scored << " (" << r.counters.early_rejects << " early rejects), "
              << r.counters.exact_scored << " exact leader scores\n"
              << "elapsed      " << r.counters.elapsed_s << " s\n";
    // Seed programs' climbs, where they are (a stored run: where they ended).
    if (!r.config.seed_programs.empty())
      for (const evolver::ClimbStatus& c : m.progress(o.id).climbs) std::cout << climb_line(c) << "\n";
    if (!r.islands.empty()) {
      std::cout << "islands      " << r.islands.size() << ", "
                << (r.config.migration ? describe_migration(*r.config.migration)
                                       : std::string("migration settings not stored (the resuming command's flags)"))
                << "\n" << std::flush;
      print_islands(stdout, r.islands);
      std::fflush(stdout);
    }
    for (std::size_t i = 0; i < leaders.size(); ++i) {
      const auto& f = leaders[i];
      char head[160];
      std::snprintf(head, sizeof head, "#%zu  chi2 %.10g %s  bias %.6g  id %s", i + 1, f.chi2,
                    f.exact ? "(exact)" : "(sampled)", f.bias, f.id.c_str());
      std::cout << "\n" << head << "\n" << objective_line(f) << f.text << "\n";
    }
  });
}

void resume(const RunsOptions& o) {
  int rc = 0;
  with_run(o, [&](evolver::RunManager& m) {
    std::optional<evolver::Budget> budget;
    if (o.seconds || o.tournaments) budget = evolver::Budget{o.seconds, o.tournaments};
    m.resume(o.id, budget);
    std::cout << "run_id: " << o.id << std::endl;
    rc = run_in_foreground(m, o.id, ForegroundOptions{o.json, o.top});
  });
  if (rc) throw ExitStatus{rc};
}

void dump(const RunsOptions& o) {
  with_run(o, [&](evolver::RunManager& m) { std::cout << m.dump(o.id); });
}

void export_run(const RunsOptions& o) {
  with_run(o, [&](evolver::RunManager& m) {
    const auto r = m.get(o.id);
    const auto hof = m.hall_of_fame(o.id, 1000);
    if (o.json) {
      nlohmann::json j = evolver::to_json(r);
      nlohmann::json h = nlohmann::json::array(), hist = nlohmann::json::array(), best = nlohmann::json::array();
      for (const auto& e : hof) h.push_back(evolver::to_json(e));
      for (const auto& p : m.history(o.id)) hist.push_back(evolver::to_json(p));
      for (const auto& f : m.leaders(o.id, static_cast<std::size_t>(o.top))) best.push_back(evolver::to_json(f));
      j["best"] = best;
      j["hall_of_fame"] = h;
      j["history"] = hist;
      evolver::PoolQuery all;
      all.limit = 1u << 30;
      j["pool"] = evolver::to_json(m.pool(o.id, all));
      std::cout << j.dump(1) << "\n";
      return;
    }
    std::cout << "// mixforge run " << r.id << ": width " << r.config.width << ", hall of fame (exact chi2)\n";
    for (const auto& e : hof) {
      char head[160];
      std::snprintf(head, sizeof head, "// chi2 %.10g%s, bias %.6g, id %s, after %.1f s", e.function.chi2,
                    e.function.exact ? " (exact)" : "", e.function.bias, e.function.id.c_str(), e.elapsed_s);
      std::cout << "\n" << head << "\n" << e.function.text << "\n";
    }
  });
}

void remove_run(const RunsOptions& o) {
  with_run(o, [&](evolver::RunManager& m) {
    m.remove(o.id);
    std::cout << "deleted " << o.id << "\n";
  });
}

}  // namespace

void add_runs_command(CLI::App& app) {
  auto o = std::make_shared<RunsOptions>();
  CLI::App* runs = app.add_subcommand("runs", "Stored evolution runs: list, show, resume, dump, export, delete");
  runs->require_subcommand(1);
  runs->add_option("--data", o->data, "Data directory (default $MIXFORGE_DATA or ./mixforge-data)");
  auto sub = [&](const char* name, const char* help, bool with_id) {
    CLI::App* c = runs->add_subcommand(name, help);
    c->add_option("--data", o->data, "Data directory");
    if (with_id) c->add_option("ID", o->id, "Run id")->required();
    return c;
  };
  CLI::App* l = sub("list", "List runs", false);
  l->add_flag("--json", o->json, "JSON array");
  l->callback([o] { list(*o); });
  CLI::App* s = sub("show", "Show a run and its best functions", true);
  s->add_flag("--json", o->json, "JSON");
  s->add_option("--top", o->top, "Best functions shown")->check(CLI::Range(0, 100000));
  s->callback([o] { show(*o); });
  CLI::App* r = sub("resume", "Continue a run from its last checkpoint in the foreground", true);
  r->add_option("--seconds", o->seconds,
                "Budget from now (default: what is left of the session's budget for a run that was paused or cut short "
                "by a shutdown or crash, else the run's own budget)");
  r->add_option("--tournaments", o->tournaments, "Tournament budget from now");
  r->add_flag("--json", o->json, "Final stdout line: one JSON object");
  r->add_option("--top", o->top, "Best functions shown at the end")->check(CLI::Range(0, 100000));
  r->add_flag("--interpreter", o->interpreter, "Score without the JIT (the interpreter hashes; for checks)");
  r->callback([o] { resume(*o); });
  CLI::App* d = sub("dump", "The pool as text, one function per line with its chi2", true);
  d->callback([o] { dump(*o); });
  CLI::App* e = sub("export", "The hall of fame as C-like text (or everything as JSON)", true);
  e->add_flag("--json", o->json, "Configuration, best, hall of fame, history and pool as JSON");
  e->add_option("--top", o->top, "Best functions in the JSON")->check(CLI::Range(0, 100000));
  e->callback([o] { export_run(*o); });
  CLI::App* del = sub("delete", "Delete a run (its hall-of-fame entries stay)", true);
  del->callback([o] { remove_run(*o); });
}

}  // namespace mixforge::cli
