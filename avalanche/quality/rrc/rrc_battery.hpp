#pragma once
// The RRC depth of a mixer, as the field reports it (Evensen's RRC streams; the depth
// figure of jonmaiga's tests-for-randomness): every one of the 4n streams (rrc_transform)
// is tested at lengths 2^first, 2^(first+1), ... up to a cap, each length from the start
// of the streams; the depth is log2 of the first length at which the battery fails, and
// the cap when it never does. At each length every stream's p-values (stream_tests) and,
// for each test, a Kolmogorov-Smirnov test of its 4n p-values (which catches streams that
// are all a little off) are pooled; the battery fails when the smallest p-value is below
// 1e-9, the published figures' rule. Not divided by the number of p-values (about 2000 at
// 32 bits): that Bonferroni rule made the best published 2-round function fail two lengths
// later than its published depth (15 against 13). The family-wise rate of a false failure
// stays small: at most (p-values per length) x 1e-9, about 2e-6 per length and 4e-5 over
// 2^10..2^24 at 32 bits; each failure also reports its Bonferroni-corrected p. Deterministic:
// the same function gives the same report, whatever the thread count.
#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "avalanche/batch_function.hpp"
#include "avalanche/quality/rrc/rrc_transform.hpp"

namespace mixforge::avalanche::rrc {

inline constexpr int default_first_log2 = 10;
inline constexpr int default_cap_log2 = 24;
inline constexpr double failure_threshold = 1e-9;

// The largest cap a width allows: a bijection on 2^(n-1) counters or more sees too large a
// part of its domain for the tests' laws (drawn with replacement) to hold.
int max_cap_log2(int width);

struct RrcOptions {
  int first_log2 = default_first_log2;  // lowered to the cap where the width lowers that below it
  int cap_log2 = default_cap_log2;      // lowered to max_cap_log2(width)
};

struct RrcFailure {
  std::string test;        // "uniform", "sac", ...; "meta:uniform" for the KS test over streams
  std::string transform;   // transform_name of the stream; "all streams" for a meta test
  double p = 0;            // the p-value itself
  double p_corrected = 0;  // times the number of p-values at that length, at most 1 (for reading only)
};

struct RrcLength {
  int log2 = 0;
  int p_values = 0;  // tested at this length (streams' and meta tests')
  RrcFailure worst;  // the smallest p-value at this length
  double seconds = 0;
};

struct RrcReport {
  int width = 0;
  int first_log2 = default_first_log2;
  int cap_log2 = default_cap_log2;  // as used (after max_cap_log2)
  int depth_log2 = 0;               // first failing length, or the cap
  bool passed_cap = false;
  std::optional<RrcFailure> first_failure;
  std::vector<RrcLength> lengths;  // each length tested, in order
  int streams = 0;                 // 4n
  double seconds = 0;
};

// Called after each length (progress for the command line and the daemon).
using RrcProgress = std::function<void(const RrcLength&)>;

// f: the mixer (thread-safe: the streams run in parallel on TBB's threads). cancel (may be
// null): EvaluationCancelled once it turns true. Throws std::invalid_argument for a width
// outside 8..64 or options whose first length is above their cap.
RrcReport rrc_battery(const BatchFunction& f, int width, const RrcOptions& options = {},
                      const std::atomic<bool>* cancel = nullptr, const RrcProgress& progress = {});

// {"depth_log2", "cap_log2", "passed_cap", "first_failure": {...} | null, "streams",
//  "first_log2", "lengths": [...], "seconds"} (schema/quality.schema.json's rrc).
nlohmann::json to_json(const RrcReport& report);

}  // namespace mixforge::avalanche::rrc
