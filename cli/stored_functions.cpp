#include "cli/stored_functions.hpp"

#include <filesystem>
#include <stdexcept>

#include "cli/commands.hpp"
#include "evolver/manager/run_manager.hpp"
#include "app/family_lookup.hpp"

namespace mixforge::cli {

std::unique_ptr<evolver::RunManager> open_store(const std::string& data, const std::string& command) {
  const std::filesystem::path db = std::filesystem::path(data) / "mixforge.db";
  std::error_code ec;
  if (!std::filesystem::exists(db, ec))
    throw UsageError(command + ": no mixforge database in " + data + " (give --data DIR of a daemon or evolve run)");
  evolver::RunManager::Options opt;
  opt.data_dir = data;
  opt.interpreter_only = true;  // lookups only: no JIT engine needed
  return std::make_unique<evolver::RunManager>(opt);
}

std::vector<evolver::ScoredFunction> best_family(evolver::RunManager& store, const std::string& run,
                                                 const std::vector<int>& widths, const std::string& command) {
  try {
    return app::best_family(store, run, widths);
  } catch (const evolver::RunNotFound& e) {
    throw UsageError(command + ": " + e.what());
  } catch (const app::NoFamily& e) {
    throw UsageError(command + ": " + e.what());
  } catch (const std::invalid_argument& e) {
    throw UsageError(command + ": " + e.what());
  }
}

}  // namespace mixforge::cli
