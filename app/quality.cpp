#include "app/quality.hpp"

#include "app/request_error.hpp"

namespace mixforge::app {

QualityPolicy command_line_quality_policy() { return {}; }

QualityPolicy daemon_quality_policy(int queue_exact_from_width) { return {false, queue_exact_from_width}; }

namespace {
avalanche::BatterySize quality_size(const std::string& size) {
  if (size == "quick") return avalanche::BatterySize::quick;
  if (size == "standard") return avalanche::BatterySize::standard;
  throw RequestError("size", "out-of-range", "\"" + size + "\" is not quick or standard");
}
}  // namespace

QualityPlan plan_quality(const QualityRequest& r, const QualityPolicy& policy) {
  QualityPlan plan;
  plan.options.size = quality_size(r.size);
  plan.options.seed = r.seed;
  plan.options.battery = r.battery;
  plan.refresh = r.refresh;
  if (r.stored) {
    if (r.width)
      throw RequestError("width", "conflicting-fields", "a width applies to program text, not to a stored function");
  } else {
    if (!policy.program_text)
      throw RequestError("program", "invalid-program", "give a stored function; program text is not judged here");
    if (r.refresh)
      throw RequestError("refresh", "conflicting-fields",
                         "refresh applies to a stored function (reports of program text are not cached)");
  }
  return plan;
}

bool quality_is_costly(int width, const QualityPolicy& policy) { return width >= policy.costly_from_width; }

}  // namespace mixforge::app
