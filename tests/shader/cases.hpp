#pragma once
// The execution cases every target's test runs: programs of several widths (all step
// kinds), inverses, rand_range and 4-lane packing incl. the write-up's Permute4, each
// with >= 2^20 inputs and the reference interpreter's outputs.
#include <cstdint>
#include <string>
#include <vector>

#include "shader/export.hpp"

namespace mixforge::test {

enum class CaseKind { scalar, range, vec4 };

// Buffer layouts (32-bit words, little-endian):
//   scalar, width <= 32: in x            -> out f(x)
//   scalar, width > 32:  in x.lo, x.hi   -> out f(x).lo, f(x).hi
//   range:               in seed, r      -> out name_range(seed, r)
//   vec4:                in v.xyzw, seed, 0, 0, 0 -> out f(v, seed).xyzw
struct Case {
  std::string label;
  CaseKind kind = CaseKind::scalar;
  shader::ExportRequest request;  // target filled in by each test
  std::string call;               // the function the glue calls
  bool wide = false;              // 64-bit values
  std::size_t count = 0;          // invocations (a multiple of 64)
  std::vector<std::uint32_t> input, expected;
  int in_words() const { return kind == CaseKind::vec4 ? 8 : (kind == CaseKind::range || wide) ? 2 : 1; }
  int out_words() const { return kind == CaseKind::vec4 ? 4 : wide ? 2 : 1; }
};

inline constexpr std::size_t default_count = std::size_t{1} << 20;

// All cases; `wide` false leaves out the 64-bit ones (WGSL).
std::vector<Case> execution_cases(bool wide = true, std::size_t count = default_count);

// "" when equal, else a message naming the first differing items (input and both outputs).
std::string compare(const Case& c, const std::vector<std::uint32_t>& actual);

}  // namespace mixforge::test
