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

#include "app/export.hpp"
#include "app/request_error.hpp"
#include "cli/commands.hpp"
#include "evolver/manager/run_manager.hpp"
#include "cli/program_input.hpp"
#include "cli/stored_functions.hpp"

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

// db: opened on the first FUNCTION_ID and reused for the others (--vec4 takes up to four).
app::ExportSource load(const std::string& argument, const Opts& o, std::unique_ptr<evolver::RunManager>& db) {
  static const std::regex function_id("[0-9a-f]{16}");
  std::error_code ec;
  if (std::regex_match(argument, function_id) && !std::filesystem::exists(argument, ec)) {
    if (!db) db = open_store(o.data, "export");
    const auto f = db->function(argument);
    if (!f) throw UsageError("export: no function with id " + argument + " in " + o.data);
    return app::stored_source(*f);
  }
  return app::typed_source(parse_program_argument(argument, o.width).program);
}

// The use case names its programs "programs" ("programs[1]": the second); here they are
// PROGRAM, the --vec4 list or the --family found.
app::RequestError spelled_here(const app::RequestError& e, const Opts& o) {
  if (e.field().rfind("programs", 0) != 0) return e;
  const std::string tail = e.field().substr(8);
  const std::string head = !o.family.empty() ? "family" : !o.vec4.empty() ? "vec4" : "program";
  return app::RequestError(head == "program" ? head : head + tail, e.code(), e.what(), e.position());
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
    app::ExportRequest r;
    if (o->bundle && !o->target.empty())
      throw UsageError("export: --target and --bundle: a bundle holds the code for every target; give one of them");
    if (o->range_method && !o->range) throw UsageError("export: --range-method needs --range");
    if (!o->bundle && o->target.empty())
      throw UsageError("export: --target is required (glsl, hlsl, wgsl, msl, cuda, cpp) unless --bundle");
    r.target = o->bundle ? "bundle" : o->target;
    if (o->range) r.range = o->range_method.value_or("jitter");
    r.constants = o->decimal ? "decimal" : "hex";
    app::check_export_options(r);  // before any lookup in the database
    if (!o->family.empty()) {
      if (!o->program.empty() || !o->vec4.empty())
        throw UsageError("export: --family picks its programs from the database; give no PROGRAM or --vec4");
      const auto db = open_store(o->data, "export");
      r.vec4 = true;
      for (const auto& f : best_family(*db, o->run, o->family, "export")) r.programs.push_back(app::stored_source(f));
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
    r.width = o->width;
    r.seeded = o->seeded;
    r.inverse = o->inverse;
    r.name = o->name;
    r.score = !o->no_score;
    app::ExportResult result;
    try {
      result = app::export_programs(std::move(r), app::command_line_export_policy());
    } catch (const app::RequestError& e) {
      throw spelled_here(e, *o);
    }
    const std::string text = result.bundle ? result.bundle_json.dump(2) + "\n" : result.code;
    if (o->output.empty()) {
      std::cout << text;
    } else {
      std::ofstream out(o->output, std::ios::binary);
      if (!(out << text)) throw UsageError("export: cannot write " + o->output);
    }
  });
}

}  // namespace mixforge::cli
