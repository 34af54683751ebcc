#include "app/family_lookup.hpp"

#include "evolver/search/pool_query.hpp"
#include "evolver/manager/run_manager.hpp"
#include "shader/families.hpp"

namespace mixforge::app {

std::vector<evolver::ScoredFunction> best_family(evolver::RunManager& store, const std::string& run,
                                                 const std::vector<int>& widths) {
  std::vector<evolver::ScoredFunction> found;
  if (!run.empty()) {
    evolver::PoolQuery q;
    q.limit = 100000;
    found = store.pool(run, q).items;
  } else {
    for (auto& e : store.hall_of_fame({}, 100000)) found.push_back(e.function);
  }
  std::vector<shader::FamilyCandidate> candidates;
  for (const auto& f : found) candidates.push_back({f.program, f.rank()});
  const std::vector<shader::Family> families = shader::find_families(candidates, widths, 1);
  if (families.empty())
    throw NoFamily("no family of programs with the same step kinds for those lane widths in " +
                   (run.empty() ? std::string("the hall of fame") : "run " + run) +
                   " (grow one with a run locked to a kind sequence: \"kind_sequence\" in the run config)");
  std::vector<evolver::ScoredFunction> members;
  for (std::size_t m : families.front().members) members.push_back(found[m]);
  return members;
}

}  // namespace mixforge::app
