#pragma once
// Known mixing functions the tests use as fixtures, and the reference scores of
// tests/data/mixers.json (see tests/data/README.md for where they come from).
#include <cstdint>
#include <string>
#include <vector>

#include "mixer/program.hpp"

namespace mixforge::test {

// Chris Wellons' lowbias32 (hash-prospector), the tests' usual 32-bit function.
inline constexpr const char* lowbias32_text =
    "x ^= x >> 16; x *= 0x7feb352d; x ^= x >> 15; x *= 0x846ca68b; x ^= x >> 16;";
mixer::Program lowbias32();
// The same function written as plain C, independent of mixforge's interpreter.
inline std::uint32_t lowbias32_value(std::uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}

// One entry of tests/data/mixers.json.
struct ReferenceMixer {
  std::string name;
  int width = 0;
  std::string text;  // C-like statements on x, one per line
  double chi2 = 0;   // exact: sum over the n x n avalanche matrix of (A - 0.5)^2 / 0.5
  double bias = 0;   // 1000 * sqrt(2 * chi2) / n
  // records.json's RRC depth as measured (bench/rrc_calibration.sh); 0 where the file has none.
  int rrc_depth_log2 = 0;
  int rrc_cap_log2 = 0;
  bool rrc_passed_cap = false;
};
// Every entry of tests/data/FILE (mixers.json, or records.json: the arenas' reference functions), in
// file order; throws when the file is missing or malformed.
std::vector<ReferenceMixer> reference_mixers(const std::string& file = "mixers.json");

}  // namespace mixforge::test
