#pragma once
// The quality report of a stored function, cached in the store: read when a report for the
// same options (and report version) is there, else computed and kept. Shared by
// `mixforge quality FUNCTION_ID` and GET /api/v1/functions/{id}/quality.
#include <atomic>

#include <nlohmann/json_fwd.hpp>

#include "avalanche/quality.hpp"

namespace mixforge {
class Evaluator;
}

namespace mixforge::evolver {

class RunManager;

// The report (to_json of avalanche/quality.hpp) with "cached" (true: read from the store)
// and "computed_at" (Unix seconds). refresh: compute even when cached. Errors as
// assess_quality; a report that is not stored (computation failed) is not cached.
nlohmann::json stored_function_quality(RunManager& runs, const Evaluator& evaluator, const Program& program,
                                       const QualityOptions& options, bool refresh,
                                       const std::atomic<bool>* cancel = nullptr);

}  // namespace mixforge::evolver
