#pragma once
// The quality report of a stored function, cached in the store: read when a report for the
// same options (and report version) is there, else computed and kept. Shared by
// `mixforge quality FUNCTION_ID` and GET /api/v1/functions/{id}/quality.
#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "avalanche/quality/quality.hpp"

namespace mixforge::avalanche {
class Evaluator;
}

namespace mixforge::evolver {

class RunManager;

// One computation per key at a time: a request for a report that another request is
// already computing waits for that one instead of computing it again (a quality report
// costs about a minute of dieharder). When the computation it waits for is cancelled
// (that client went away), a waiter computes it itself. Owned by the daemon.
class SharedComputations {
 public:
  SharedComputations();
  ~SharedComputations();
  SharedComputations(const SharedComputations&) = delete;
  SharedComputations& operator=(const SharedComputations&) = delete;
  // compute's result, or the result of the computation for key already running. cancel
  // (may be null) ends a wait with EvaluationCancelled. Errors of compute reach every
  // caller that shared it, EvaluationCancelled only its own caller.
  nlohmann::json run(const std::string& key, const std::function<nlohmann::json()>& compute,
                     const std::atomic<bool>* cancel = nullptr);
  std::size_t running() const;  // keys in flight
  std::size_t waiting() const;  // callers waiting for another's computation

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// A cached report as the API answers it ("cached": true and its "computed_at"), or
// nullopt when none is stored for this key or its row is damaged (then it is recomputed
// rather than served). Never computes.
std::optional<nlohmann::json> cached_quality_report(RunManager& runs, const std::string& function_id,
                                                    const std::string& key);

// The report (to_json of avalanche/quality/quality.hpp) with "cached" (true: read from the store)
// and "computed_at" (Unix seconds). refresh: compute even when cached. Errors as
// assess_quality; a report that is not stored (computation failed) is not cached.
nlohmann::json stored_function_quality(RunManager& runs, const avalanche::Evaluator& evaluator,
                                       const mixer::Program& program, const avalanche::QualityOptions& options,
                                       bool refresh, const std::atomic<bool>* cancel = nullptr,
                                       SharedComputations* shared = nullptr);

// The verdicts of a function's cached report, for listings (the hall of fame): the
// standard-size report, else the quick one; null when neither was computed. Never computes.
// {"size", "bit_independence": verdict|null, "higher_order": [{"flipped_bits", "verdict"}],
//  "battery": {"status", "passed", "weak", "failed"}}
nlohmann::json stored_quality_summary(RunManager& runs, const std::string& function_id);

}  // namespace mixforge::evolver
