#pragma once
// The run creation use case: a run's configuration (schema/run.schema.json) checked by the
// evolver's rules (widths 1..64, steps, kinds, weights, budget, seed: evolver/search/
// run_config.hpp) with the defaults filled in. The entry points differ only in their
// RunCreationPolicy, below; a daemon's cap on active runs is admission (429), not a rule
// of the configuration, and stays in server/. Errors are RequestErrors naming the
// configuration's field as a path ("width", "budget.seconds", "kind_sequence[1]").
#include <optional>

#include <nlohmann/json.hpp>

#include "evolver/search/run_config.hpp"

namespace mixforge::app {

struct RunCreationPolicy {
  std::optional<double> default_budget_seconds;  // a configuration without a budget gets this one
};

// Where the entry points differ on purpose, and why (the only place they do):
// - `mixforge evolve` runs in the foreground: without a budget it stops after 600 s (a
//   run without one only through a configuration saying "budget": null or {});
// - the daemon's runs live on the server until stopped: without a budget a run runs until
//   POST /runs/{id}/stop.
RunCreationPolicy command_line_run_policy();
RunCreationPolicy daemon_run_policy();

struct RunCreationRequest {
  nlohmann::json config = nlohmann::json::object();  // a file's or a body's, with the command line's flags
  std::optional<evolver::Budget> budget;             // given beside it (--seconds, --tournaments): replaces its budget
};

// Throws RequestError (code "invalid-run-config") naming the field.
evolver::RunConfig plan_run(const RunCreationRequest& request, const RunCreationPolicy& policy);

}  // namespace mixforge::app
