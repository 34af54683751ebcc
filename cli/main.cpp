// mixforge: one binary, subcommands (see README.md).
#include <CLI/CLI.hpp>

#include <iostream>

#include "app/request_error.hpp"
#include "cli/commands.hpp"
#include "cli/option_names.hpp"

int main(int argc, char** argv) {
  CLI::App app{"mixforge: synthesise, score and export integer mixing functions"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "mixforge 0.1.0");
  using namespace mixforge::cli;
  add_eval_command(app);
  add_quality_command(app);
  add_apply_command(app);
  add_invert_command(app);
  add_export_command(app);
  add_evolve_command(app);
  add_polish_command(app);
  add_runs_command(app);
  add_serve_command(app);
#ifdef MIXFORGE_WITH_BAKER
  add_bake_command(app);
#endif
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  } catch (const ExitStatus& e) {
    return e.code;
  } catch (const mixforge::app::RequestError& e) {
    // A use case's rule (app/): bad input, named by this entry point's spelling.
    std::cerr << "mixforge: " << option_for_field(e.field()) << ": " << e.what() << "\n";
    return 2;
  } catch (const UsageError& e) {
    std::cerr << "mixforge: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "mixforge: error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
