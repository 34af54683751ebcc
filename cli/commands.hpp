#pragma once
// Each subcommand lives in its own file (cli/<name>_command.cpp) and registers itself
// on the app here. Callbacks throw UsageError for bad input (exit 2, message only).
#include <stdexcept>
#include <string>

namespace CLI { class App; }

namespace mixforge::cli {

// Bad user input: printed as "mixforge: <message>" and exit code 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A command that has printed its own output and only sets the exit code (e.g. a batch
// with some bad lines): main returns the code, destructors run, nothing more is printed.
struct ExitStatus {
  int code;
};

void add_eval_command(CLI::App& app);
void add_quality_command(CLI::App& app);
void add_apply_command(CLI::App& app);
void add_invert_command(CLI::App& app);
void add_export_command(CLI::App& app);
void add_evolve_command(CLI::App& app);
void add_polish_command(CLI::App& app);
void add_runs_command(CLI::App& app);
void add_serve_command(CLI::App& app);
void add_bake_command(CLI::App& app);

}  // namespace mixforge::cli
