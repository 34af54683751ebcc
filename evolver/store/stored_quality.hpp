#pragma once
// A cached quality report (avalanche/quality/quality.hpp) as the store keeps it: its JSON text and
// when it was made.
#include <string>

namespace mixforge::evolver {

struct StoredQualityReport {
  std::string report;
  double computed_at = 0;  // Unix seconds
};

}  // namespace mixforge::evolver
