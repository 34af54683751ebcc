#include "app/run_creation.hpp"

#include "app/request_error.hpp"

namespace mixforge::app {

namespace {
// The evolver's error as the use case's: its what() starts with the field ("width: ...").
RequestError as_request_error(const evolver::ConfigError& e) {
  std::string message = e.what();
  const std::string prefix = e.field() + ": ";
  if (message.rfind(prefix, 0) == 0) message.erase(0, prefix.size());
  return RequestError(e.field(), "invalid-run-config", message);
}
}  // namespace

RunCreationPolicy command_line_run_policy() { return {600.0}; }
RunCreationPolicy daemon_run_policy() { return {}; }

evolver::RunConfig plan_run(const RunCreationRequest& r, const RunCreationPolicy& policy) {
  try {
    nlohmann::json config = r.config;
    if (r.budget) {
      // Before JSON: a budget made in code may be NaN, and the schema reads 2^63 as negative.
      evolver::validate_budget(*r.budget);
      nlohmann::json b = nlohmann::json::object();
      if (r.budget->seconds) b["seconds"] = *r.budget->seconds;
      if (r.budget->tournaments) b["tournaments"] = *r.budget->tournaments;
      config["budget"] = b;
    } else if (config.is_object() && !config.contains("budget") && policy.default_budget_seconds) {
      config["budget"] = {{"seconds", *policy.default_budget_seconds}};
    }
    return evolver::run_config_from_json(config);
  } catch (const evolver::ConfigError& e) {
    throw as_request_error(e);
  }
}

}  // namespace mixforge::app
