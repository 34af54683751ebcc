#pragma once
// The quality use case: a function's report beyond single-bit avalanche (bit independence,
// higher-order avalanche, counter-mode dieharder; avalanche/quality/quality.hpp). The rules (which
// size, which options go with a stored function or with program text, when a report is
// costly) live here; the entry points differ only in their QualityPolicy, below. Errors
// are RequestErrors naming "size", "width", "refresh" or "program".
#include <cstdint>
#include <optional>
#include <string>

#include "avalanche/quality/quality.hpp"

namespace mixforge::app {

struct QualityPolicy {
  bool program_text = true;    // false: stored functions only
  int costly_from_width = 65;  // reports of functions this wide are costly (wait for a slot)
  bool rrc_is_costly = false;  // reports with the RRC battery are costly, whatever the width
};

// Where the entry points differ on purpose, and why (the only place they do):
// - the command line judges a stored function or program text on the user's own cores,
//   whatever its width; it takes a seed and can skip the battery (--seed, --no-battery);
// - the daemon judges stored functions (GET /functions/{id}/quality) with the defaults
//   (seed 1, with the battery: the report every client shares from the cache), and a
//   function of queue_exact_from_width bits or more (exact avalanche over 2^24 inputs,
//   dieharder at 32 bits) waits in the evaluation queue like an exact evaluation.
QualityPolicy command_line_quality_policy();
QualityPolicy daemon_quality_policy(int queue_exact_from_width);

struct QualityRequest {
  std::string size = "standard";  // "quick" or "standard": sample counts and the battery's size
  std::uint64_t seed = 1;         // of every sampled measure
  bool battery = true;            // false: skip the counter battery
  bool refresh = false;           // compute again even when a stored function's report is cached
  bool stored = true;             // a stored function (by id); false: program text
  std::optional<int> width;       // a width given beside the program (text only)
  bool rrc = false;               // also the RRC depth battery
  std::optional<int> rrc_cap_log2;  // its cap, log2 of the longest stream (with rrc only)
};

struct QualityPlan {
  avalanche::QualityOptions options;
  bool refresh = false;
};

// The request checked against the policy (before the function is looked up). Throws RequestError naming
// "size" (not quick or standard), "width" (given with a stored function, which has its
// own), "refresh" (program text: its reports are not cached), "program" (text where the
// policy takes stored functions only) or "rrc_cap_log2" (outside 11..40, or without rrc).
QualityPlan plan_quality(const QualityRequest& request, const QualityPolicy& policy);

// Once the function's width is known: the RRC battery needs 8 to 64 bits (RequestError
// naming "rrc" otherwise).
void check_quality_width(const QualityPlan& plan, int width);

// Whether the report of a function of this width is costly under the policy.
bool quality_is_costly(int width, const QualityPlan& plan, const QualityPolicy& policy);

}  // namespace mixforge::app
