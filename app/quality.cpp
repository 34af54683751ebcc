#include "app/quality.hpp"

#include "app/request_error.hpp"

namespace mixforge::app {

QualityPolicy command_line_quality_policy() { return {}; }

// The RRC battery takes seconds (a function that fails early) to minutes (one that passes
// 2^24): the daemon queues it like an exact evaluation.
QualityPolicy daemon_quality_policy(int queue_exact_from_width) { return {false, queue_exact_from_width, true}; }

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
  plan.options.rrc = r.rrc;
  if (r.rrc_cap_log2) {
    if (!r.rrc)
      throw RequestError("rrc_cap_log2", "conflicting-fields", "a cap applies with the RRC battery (rrc) only");
    // 2^11 at least: one length beyond the first; 2^40: days at 64 bits.
    if (*r.rrc_cap_log2 < avalanche::rrc::default_first_log2 + 1 || *r.rrc_cap_log2 > 40)
      throw RequestError("rrc_cap_log2", "out-of-range",
                         std::to_string(*r.rrc_cap_log2) + " is outside " +
                             std::to_string(avalanche::rrc::default_first_log2 + 1) + "..40");
    plan.options.rrc_cap_log2 = *r.rrc_cap_log2;
  }
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

void check_quality_width(const QualityPlan& plan, int width) {
  if (plan.options.rrc && (width < 8 || width > 64))
    throw RequestError("rrc", "out-of-range",
                       "the RRC battery needs a function of 8 to 64 bits; this one has " + std::to_string(width));
}

bool quality_is_costly(int width, const QualityPlan& plan, const QualityPolicy& policy) {
  return width >= policy.costly_from_width || (plan.options.rrc && policy.rrc_is_costly);
}

}  // namespace mixforge::app
