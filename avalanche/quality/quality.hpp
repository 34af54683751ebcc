#pragma once
// A function's quality report: single-bit avalanche (exact up to 32 bits), the bit
// independence criterion, higher-order avalanche, the second-order differential and
// counter-mode tests (dieharder), for
// `mixforge quality` and GET /api/v1/functions/{id}/quality. Deterministic: the same
// program and options give the same measures (only the timings differ).
#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "avalanche/stats/bit_independence.hpp"
#include "avalanche/stats/chi_square.hpp"
#include "avalanche/quality/counter_battery.hpp"
#include "avalanche/stats/higher_order_avalanche.hpp"
#include "avalanche/quality/rrc/rrc_battery.hpp"
#include "avalanche/stats/second_order_differential.hpp"
#include "mixer/program.hpp"

namespace mixforge::avalanche {

class Evaluator;

// Bumped whenever a measure or the report's form changes: cached reports of another
// version are not reused. 2: the second-order differential.
inline constexpr int quality_version = 2;

struct QualityOptions {
  BatterySize size = BatterySize::standard;  // sample counts and the battery's size
  std::uint64_t seed = 1;                    // of every sampled measure
  bool battery = true;                       // false: the counter battery is skipped
  bool rrc = false;                          // the RRC depth battery (avalanche/quality/rrc/rrc_battery.hpp)
  int rrc_cap_log2 = rrc::default_cap_log2;  // its cap (lowered to rrc::max_cap_log2(width))
};

// What a size means in samples.
struct QualityPlan {
  int exact_max_width = 32;             // single-bit avalanche exact up to this width
  std::uint64_t avalanche_samples = 0;  // sampled above it
  std::uint64_t bic_samples_per_bit = 0;
  std::uint64_t higher_order_samples = 0;           // per number of flipped bits
  std::uint64_t second_order_samples_per_pair = 0;  // inputs x per pair (a, b); exact where the cosets are fewer
};
QualityPlan quality_plan(BatterySize size);

struct WorstCell {
  int input_bit = 0, output_bit = 0;
  double flip_probability = 0.5;  // A[i][j]
  double deviation = 0;           // |A[i][j] - 1/2|
};

struct QualityReport {
  mixer::Program program;
  QualityOptions options;
  Score avalanche;
  WorstCell worst_cell;
  BitIndependence bit_independence;
  std::vector<FlipDistance> higher_order;
  SecondOrderDifferential second_order;
  CounterBattery battery;
  std::optional<rrc::RrcReport> rrc;  // when asked for
  double seconds = 0;
};

// Runs every measure. cancel (may be null): EvaluationCancelled once it turns true.
// Throws ProgramError for an invalid program, std::runtime_error when dieharder fails.
// rrc_progress (may be empty) hears of each length the RRC battery tests.
QualityReport assess_quality(const Evaluator& evaluator, const mixer::Program& program, const QualityOptions& options,
                             const std::atomic<bool>* cancel = nullptr, const rrc::RrcProgress& rrc_progress = {});

WorstCell worst_cell(const AvalancheCounts& counts);

// The wire form (schema/quality.schema.json, less the fields the caller adds: cached,
// computed_at).
nlohmann::json to_json(const QualityReport& report);
// Identifies the options and the version a cached report was made with ("v2;standard;seed=1;battery=1",
// with ";rrc=24" when the RRC battery ran, 24 its cap).
std::string quality_cache_key(const QualityOptions& options);

}  // namespace mixforge::avalanche
