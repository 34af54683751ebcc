#include "evolver/quality_cache.hpp"

#include <chrono>

#include <nlohmann/json.hpp>

#include "evolver/run_manager.hpp"

namespace mixforge::evolver {

nlohmann::json stored_function_quality(RunManager& runs, const Evaluator& evaluator, const Program& program,
                                       const QualityOptions& options, bool refresh, const std::atomic<bool>* cancel) {
  const std::string id = program.id();
  const std::string key = quality_cache_key(options);
  if (!refresh) {
    if (auto stored = runs.quality_report(id, key)) {
      // A damaged row is recomputed rather than served.
      nlohmann::json j = nlohmann::json::parse(stored->report, nullptr, false);
      if (j.is_object()) {
        j["cached"] = true;
        j["computed_at"] = stored->computed_at;
        return j;
      }
    }
  }
  nlohmann::json j = to_json(assess_quality(evaluator, program, options, cancel));
  const double now =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  runs.put_quality_report(id, key, j.dump(), now);
  j["cached"] = false;
  j["computed_at"] = now;
  return j;
}

}  // namespace mixforge::evolver
