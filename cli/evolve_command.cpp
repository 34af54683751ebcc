// mixforge evolve: start an evolution run and follow it in the foreground.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>

#include "app/request_error.hpp"
#include "app/run_creation.hpp"
#include "cli/commands.hpp"
#include "cli/device_option.hpp"
#include "cli/islands.hpp"
#include "cli/program_input.hpp"
#include "cli/run_foreground.hpp"
#include "evolver/manager/run_manager.hpp"

namespace mixforge::cli {
namespace {

struct EvolveOptions {
  std::string device;
  std::optional<int> width;
  std::optional<int> max_steps;
  std::optional<int> min_steps;
  std::optional<double> seconds;
  std::optional<std::uint64_t> tournaments;
  std::optional<std::uint64_t> pool;
  std::optional<std::uint64_t> seed;
  std::optional<unsigned> threads;
  std::optional<double> bic_weight;
  std::optional<double> higher_order_weight;
  std::optional<std::uint64_t> objective_samples;
  std::optional<double> rrc_weight;
  std::optional<int> rrc_cap;
  std::optional<double> rrc_chi2_bound;
  std::optional<std::string> kind_sequence;
  std::vector<std::string> seed_programs;
  std::string name;
  std::string data;
  std::string config;
  bool json = false;
  bool interpreter = false;
  int top = 5;
  bool islands = false;
  std::string resume;  // --islands --resume RUN_ID
  IslandCliOptions island;
};

nlohmann::json read_config_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw UsageError("cannot read config file " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  try {
    return nlohmann::json::parse(ss.str());
  } catch (const nlohmann::json::parse_error& e) {
    throw UsageError(path + ": not valid JSON: " + e.what());
  } catch (const nlohmann::json::out_of_range& e) {
    throw UsageError(path + ": a number out of range: " + e.what());  // 1e999
  }
}

// `evolve --islands --resume ID`: the stored run's own configuration; --seconds and
// --tournaments give the extra budget, as `runs resume` takes it.
void resume_islands(const EvolveOptions& o) {
  if (!o.islands)
    throw UsageError("--resume is for island runs (with --islands); resume other runs with: mixforge runs resume ID");
  if (o.width || o.max_steps || o.min_steps || o.pool || o.seed || o.threads || !o.config.empty() ||
      o.kind_sequence || !o.name.empty())
    throw UsageError("--resume continues the stored run with its own configuration: only --seconds and "
                     "--tournaments (the extra budget) may be given with it");
  std::optional<evolver::Budget> extra;
  if (o.seconds || o.tournaments) extra = evolver::Budget{o.seconds, o.tournaments};
  run_islands({}, o.island, data_directory(o.data), o.device, o.interpreter, o.json, o.resume, extra);
}

// Whether the field (or a path below it) was set by one of the given flags.
bool set_by_flag(const std::string& field, const std::vector<std::string>& flagged) {
  for (const auto& f : flagged)
    if (field == f || field.rfind(f + ".", 0) == 0 || field.rfind(f + "[", 0) == 0) return true;
  return false;
}

void run_evolve(const EvolveOptions& o) {
  if (!o.resume.empty()) return resume_islands(o);
  nlohmann::json j = o.config.empty() ? nlohmann::json::object() : read_config_file(o.config);
  if (!j.is_object()) throw UsageError(o.config + ": (root): the configuration must be a JSON object");
  // Flags given on the command line override the file; `flagged` keeps the fields they set,
  // so that an error names the option (main: cli/option_names.*) or else the file's field.
  std::vector<std::string> flagged;
  auto set = [&](const char* field, nlohmann::json value) {
    nlohmann::json::json_pointer at("/" + std::string(field));
    j[at] = std::move(value);
    std::string path = field;
    std::replace(path.begin(), path.end(), '/', '.');
    flagged.push_back(path);
  };
  if (o.width) set("width", *o.width);
  if (o.max_steps) set("max_steps", *o.max_steps);
  if (o.min_steps) set("min_steps", *o.min_steps);
  if (o.pool) set("pool_size", *o.pool);
  if (o.seed) set("seed", evolver::seed_to_json(*o.seed));  // above 2^53-1: a string
  if (o.threads) set("threads", *o.threads);
  if (!o.name.empty()) set("name", o.name);
  if (o.bic_weight) set("objective/bic_weight", *o.bic_weight);
  if (o.higher_order_weight) set("objective/higher_order_weight", *o.higher_order_weight);
  if (o.objective_samples) set("objective/samples", *o.objective_samples);
  if (o.rrc_weight) set("objective/rrc_weight", *o.rrc_weight);
  if (o.rrc_cap) set("objective/rrc_cap_log2", *o.rrc_cap);
  if (o.rrc_chi2_bound) set("objective/rrc_chi2_bound", *o.rrc_chi2_bound);
  app::RunCreationRequest request;
  if (o.seconds || o.tournaments) {
    request.budget = evolver::Budget{o.seconds, o.tournaments};
    if (o.seconds) flagged.push_back("budget.seconds");
    if (o.tournaments) flagged.push_back("budget.tournaments");
  }
  if (o.kind_sequence) {
    if (o.kind_sequence->find_first_not_of(" ,") == std::string::npos)
      throw app::RequestError("kind_sequence", "out-of-range", "no kinds given (e.g. xsr,mul,xsr,mul,xsr)");
    nlohmann::json seq = nlohmann::json::array();
    std::stringstream ss(*o.kind_sequence);
    for (std::string k; std::getline(ss, k, ',');) {
      k.erase(0, k.find_first_not_of(' '));
      k.erase(k.find_last_not_of(' ') + 1);
      seq.push_back(k);
    }
    set("kind_sequence", seq);
  }
  if (!o.seed_programs.empty()) {
    nlohmann::json seeds = nlohmann::json::array();
    for (const std::string& a : o.seed_programs) seeds.push_back(read_program_argument(a));
    set("seed_programs", seeds);
  }
  request.config = std::move(j);
  evolver::RunConfig config;
  try {
    config = app::plan_run(request, app::command_line_run_policy());
  } catch (const app::RequestError& e) {
    if (set_by_flag(e.field(), flagged)) throw;
    throw UsageError((o.config.empty() ? "" : o.config + ": ") + e.field() + ": " + e.what());
  }
  if (o.islands) {
    run_islands(config, o.island, data_directory(o.data), o.device, o.interpreter, o.json);
    return;
  }
  int rc = 0;
  {
    evolver::RunManager::Options mo;
    mo.data_dir = data_directory(o.data);
    mo.interpreter_only = o.interpreter;
    if (!o.interpreter) mo.device = open_device(o.device);
    evolver::RunManager manager(mo);
    const std::string id = manager.create(config, true);
    std::cout << "run_id: " << id << std::endl;
    ForegroundOptions fo;
    fo.json = o.json;
    fo.top = o.top;
    rc = run_in_foreground(manager, id, fo);
  }
  if (rc) throw ExitStatus{rc};
}

}  // namespace

void add_evolve_command(CLI::App& app) {
  auto o = std::make_shared<EvolveOptions>();
  CLI::App* cmd = app.add_subcommand("evolve", "Evolve mixing functions (tournament search); prints the run id first");
  cmd->add_option("--width", o->width, "Bits, 1..64 (default 32)");
  cmd->add_option("--max-steps", o->max_steps, "Most steps a program may have (default 5)");
  cmd->add_option("--min-steps", o->min_steps, "Fewest steps (default 1)");
  cmd->add_option("--seconds", o->seconds, "Time budget (default 600 unless --tournaments or the config sets one)");
  cmd->add_option("--tournaments", o->tournaments, "Tournament budget");
  cmd->add_option("--pool", o->pool, "Pool size (default 1000)");
  cmd->add_option("--seed", o->seed, "RNG seed (default 1); with --threads 1 a run is reproducible");
  cmd->add_option("--threads", o->threads, "Worker threads (default: all cores)");
  cmd->add_option("--kind-sequence", o->kind_sequence,
                  "Lock programs to these step kinds, e.g. xsr,mul,xsr,mul,xsr");
  cmd->add_option("--seed-program", o->seed_programs,
                  "Start from this program (text or a file; repeatable): it enters the pool and is polished by "
                  "the exact climb of `mixforge polish` inside the run (widths <= 32)");
  cmd->add_option("--bic-weight", o->bic_weight,
                  "Weight of the bit independence term in the objective (default 0: single-bit avalanche only)");
  cmd->add_option("--higher-order-weight", o->higher_order_weight,
                  "Weight of the 2-/3-bit flip avalanche term in the objective (default 0)");
  cmd->add_option("--objective-samples", o->objective_samples,
                  "Inputs per flipped bit for the objective's extra terms (default 16384)");
  cmd->add_option("--rrc-weight", o->rrc_weight,
                  "Weight of the RRC depth term, in chi2 units per doubling of depth short of --rrc-cap (default 0)");
  cmd->add_option("--rrc-cap", o->rrc_cap, "RRC depth measured up to 2^this stream elements (default 20)");
  cmd->add_option("--rrc-chi2-bound", o->rrc_chi2_bound,
                  "Measure the RRC depth only for programs with chi2 at most this (default 0: all)");
  cmd->add_option("--name", o->name, "A name for the run");
  cmd->add_option("--data", o->data, "Data directory (default $MIXFORGE_DATA or ./mixforge-data)");
  cmd->add_option("--config", o->config, "Run configuration JSON (schema/run.schema.json); flags override it");
  add_device_option(cmd, &o->device);
  cmd->add_option("--top", o->top, "Best functions shown at the end (default 5)")->check(CLI::Range(0, 100000));
  cmd->add_flag("--json", o->json, "Final stdout line: one JSON object with run_id and best");
  cmd->add_flag("--interpreter", o->interpreter, "Score without the JIT (the interpreter hashes; slower; for checks)");
  cmd->add_flag("--islands", o->islands,
                "One island per MPI rank (run under mpirun -np K); rank 0 owns the data directory");
  cmd->add_option("--resume", o->resume,
                  "With --islands: continue this island run, every rank from its last stored checkpoint "
                  "(--seconds / --tournaments: the extra budget)");
  add_island_options(cmd, &o->island);
  cmd->callback([o] { run_evolve(*o); });
}

}  // namespace mixforge::cli
