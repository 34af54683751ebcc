#include "cli/stored_functions.hpp"

#include <filesystem>
#include <stdexcept>

#include "cli/commands.hpp"
#include "evolver/pool_query.hpp"
#include "evolver/run_manager.hpp"
#include "shader/families.hpp"

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
  std::vector<evolver::ScoredFunction> found;
  if (!run.empty()) {
    evolver::PoolQuery q;
    q.limit = 100000;
    try {
      found = store.pool(run, q).items;
    } catch (const evolver::RunNotFound& e) {
      throw UsageError(command + ": " + e.what());
    }
  } else {
    for (auto& e : store.hall_of_fame({}, 100000)) found.push_back(e.function);
  }
  std::vector<shader::FamilyCandidate> candidates;
  for (const auto& f : found) candidates.push_back({f.program, f.rank()});
  std::vector<shader::Family> families;
  try {
    families = shader::find_families(candidates, widths, 1);
  } catch (const std::invalid_argument& e) {
    throw UsageError(command + ": " + e.what());
  }
  if (families.empty())
    throw UsageError(command + ": no family of programs with the same step kinds for those lane widths in " +
                     (run.empty() ? "the hall of fame" : "run " + run) +
                     " (grow one with a run locked to a kind sequence: \"kind_sequence\" in the run config)");
  std::vector<evolver::ScoredFunction> members;
  for (std::size_t m : families.front().members) members.push_back(found[m]);
  return members;
}

}  // namespace mixforge::cli
