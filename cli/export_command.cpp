// mixforge export: a program (or up to four, packed) as GLSL / HLSL / WGSL / MSL / CUDA /
// C++ source, or a JSON bundle with every target.
#include <CLI/CLI.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <regex>

#include "avalanche/evaluator.hpp"
#include "cli/commands.hpp"
#include "evolver/manager/run_manager.hpp"
#include "cli/program_input.hpp"
#include "cli/stored_functions.hpp"
#include "shader/bundle.hpp"
#include "shader/export.hpp"

namespace mixforge::cli {

namespace {
struct Opts {
  std::string target;
  std::optional<int> width;
  std::string name;
  bool inverse = false;
  bool range = false;
  std::optional<std::string> range_method;  // jitter unless given
  std::vector<std::string> vec4;
  bool seeded = false;
  bool decimal = false;
  bool bundle = false;
  bool no_score = false;
  std::string program;
  std::string data = "mixforge-data";
  std::string output;
  std::vector<int> family;  // lane widths: pick the best family from the database
  std::string run;          // --family: search this run's pool (default: the hall of fame)
};

shader::ExportProgram from_stored(const evolver::ScoredFunction& f) {
  shader::ExportProgram p{f.program, std::nullopt};
  p.score = shader::ProgramScore{f.chi2_exact.value_or(f.chi2), f.bias, f.chi2_exact.has_value() || f.exact,
                                 f.samples};
  return p;
}

// Exact scores: all 2^n inputs with the JIT (about 2 s at 32 bits on 2 cores); wider
// programs cannot be scored exactly and are left unscored here.
constexpr int max_scored_width = 32;

// db: opened on the first FUNCTION_ID and reused for the others (--vec4 takes up to four).
shader::ExportProgram load(const std::string& argument, const Opts& o,
                           std::unique_ptr<evolver::RunManager>& db) {
  static const std::regex function_id("[0-9a-f]{16}");
  std::error_code ec;
  if (std::regex_match(argument, function_id) && !std::filesystem::exists(argument, ec)) {
    if (!db) db = open_store(o.data, "export");
    const auto f = db->function(argument);
    if (!f) throw UsageError("export: no function with id " + argument + " in " + o.data);
    if (o.width && *o.width != f->program.width())
      throw UsageError("export: --width " + std::to_string(*o.width) + " but function " + argument + " has width " +
                       std::to_string(f->program.width()));
    return from_stored(*f);
  }
  return shader::ExportProgram{parse_program_argument(argument, o.width).program, std::nullopt};
}

// Programs typed on the command line get their exact score here, after the request has
// been checked: a mistake in the options must not cost a 2^32-input scoring first.
void score_unscored(shader::ExportRequest& r, const Opts& o) {
  if (o.no_score) return;
  std::unique_ptr<Evaluator> evaluator;
  for (auto& p : r.programs) {
    if (p.score || p.program.width() > max_scored_width) continue;
    if (!evaluator) evaluator = Evaluator::with_own_engine();
    const Score s = evaluator->exact(p.program);
    p.score = shader::ProgramScore{s.chi2, s.bias, true, s.samples};
  }
}

std::string export_text(const shader::ExportRequest& r, bool bundle) {
  try {
    return bundle ? shader::export_bundle(r).dump(2) + "\n" : shader::export_code(r);
  } catch (const shader::ExportError& e) {
    // The option at fault, where the field is one ("programs/1": the message says which).
    const std::string& f = e.field();
    const bool option = !f.empty() && f.rfind("programs", 0) != 0;
    throw UsageError(std::string("export: ") + (option ? "--" + f + ": " : "") + e.what());
  }
}
}  // namespace

void add_export_command(CLI::App& app) {
  auto o = std::make_shared<Opts>();
  auto* cmd = app.add_subcommand("export", "Export a program as shader / CUDA / C++ source");
  cmd->add_option("--target", o->target, "glsl, hlsl, wgsl, msl, cuda or cpp (not with --bundle)");
  cmd->add_option("--width", o->width, "Width in bits (default: from the text's mask, else 32)")
      ->check(CLI::Range(1, 64));
  cmd->add_option("--name", o->name, "Function name (default: mix<width>_<id prefix>)");
  cmd->add_flag("--inverse", o->inverse, "Export the inverse program (name(f(x)) == x)");
  cmd->add_flag("--range", o->range,
                "Also export <name>_range(seed, r), a value in [0, r) for r <= 65536 (32-bit programs)");
  cmd->add_option("--range-method", o->range_method, "jitter (default, uniform) or fraction")
      ->check(CLI::IsMember({"jitter", "fraction"}));
  cmd->add_option("--vec4", o->vec4, "Up to four programs with the same step kinds, packed into one 4-lane function")
      ->expected(1, 4);
  cmd->add_flag("--seeded", o->seeded, "--vec4: xor lanes narrower than 32 bits with a seed argument first");
  cmd->add_flag("--decimal", o->decimal, "Write step constants in decimal (default: hex)");
  cmd->add_flag("--bundle", o->bundle, "Write a JSON bundle with the programs and the code for every target");
  cmd->add_flag("--no-score", o->no_score,
                "Do not compute the exact chi2 of PROGRAM arguments (computed by default for widths <= 32)");
  cmd->add_option("program", o->program, "PROGRAM text, a file path, or - for stdin");
  if (const char* env = std::getenv("MIXFORGE_DATA")) o->data = env;
  cmd->add_option("--data", o->data,
                  "Data directory for FUNCTION_ID and --family lookups (default $MIXFORGE_DATA or ./mixforge-data)");
  cmd->add_option("--family", o->family,
                  "Lane widths (1..4 values, each <= 32): export the best family of programs with the "
                  "same step kinds from the database as one 4-lane function")
      ->delimiter(',')
      ->expected(1, 4)
      ->check(CLI::Range(1, 32));
  cmd->add_option("--run", o->run, "--family: search this run's pool instead of the hall of fame");
  cmd->add_option("-o,--output", o->output, "Write to this file instead of stdout");
  cmd->callback([o] {
    shader::ExportRequest r;
    if (o->bundle && !o->target.empty())
      throw UsageError("export: --target and --bundle: a bundle holds the code for every target; give one of them");
    if (o->range_method && !o->range) throw UsageError("export: --range-method needs --range");
    if (!o->bundle) {
      if (o->target.empty()) throw UsageError("export: --target is required (glsl, hlsl, wgsl, msl, cuda, cpp) unless --bundle");
      auto t = shader::target_from_name(o->target);
      if (!t) throw UsageError("export: unknown --target \"" + o->target + "\" (expected glsl, hlsl, wgsl, msl, cuda or cpp)");
      r.target = *t;
    }
    if (!o->family.empty()) {
      if (!o->program.empty() || !o->vec4.empty())
        throw UsageError("export: --family picks its programs from the database; give no PROGRAM or --vec4");
      const auto db = open_store(o->data, "export");
      r.vec4 = true;
      for (const auto& f : best_family(*db, o->run, o->family, "export")) r.programs.push_back(from_stored(f));
    } else if (!o->vec4.empty()) {
      if (!o->program.empty())
        throw UsageError("export: give the programs after --vec4, not as a separate PROGRAM argument");
      r.vec4 = true;
      std::unique_ptr<evolver::RunManager> db;
      for (const auto& a : o->vec4) r.programs.push_back(load(a, *o, db));
    } else {
      if (o->program.empty()) throw UsageError("export: a PROGRAM (or --vec4 P1 .. P4) is required");
      std::unique_ptr<evolver::RunManager> db;
      r.programs.push_back(load(o->program, *o, db));
    }
    r.seeded = o->seeded;
    r.inverse = o->inverse;
    if (o->range)
      r.range = o->range_method == std::optional<std::string>("fraction") ? shader::RangeMethod::fraction
                                                                          : shader::RangeMethod::jitter;
    r.name = o->name;
    r.constants = o->decimal ? shader::ConstantStyle::decimal : shader::ConstantStyle::hex;
    export_text(r, o->bundle);  // checks the request before any scoring
    score_unscored(r, *o);
    const std::string text = export_text(r, o->bundle);
    if (o->output.empty()) {
      std::cout << text;
    } else {
      std::ofstream out(o->output, std::ios::binary);
      if (!(out << text)) throw UsageError("export: cannot write " + o->output);
    }
  });
}

}  // namespace mixforge::cli
