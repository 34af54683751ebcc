#pragma once
// rand_range(seed, r): a value in [0, r) for r in 1..65536 from one 32-bit hash, with no
// loop (docs/background.md). Reference definitions; the exporters emit the same formulas.
#include <cstdint>
#include <string>

#include "shader/code_model.hpp"
#include "shader/export.hpp"

namespace mixforge::shader {

inline constexpr std::uint32_t max_range = 65536;

// The low 16 bits of h as a 16.16 fraction of r. Buckets get floor or ceil of 2^16 / r
// fractions, so unless r divides 2^16 the output is visibly non-uniform.
constexpr std::uint32_t rand_range_fraction(std::uint32_t h, std::uint32_t r) {
  return (r * (h & 0xffffu)) >> 16;
}
// Adds h mod r before the shift: each fraction's r-wide interval is covered evenly,
// which cancels the truncation bias (exact when h mod r is uniform and independent of
// the fraction). r * 0xffff + r - 1 < 2^32 for r <= 2^16, so nothing overflows.
constexpr std::uint32_t rand_range_jitter(std::uint32_t h, std::uint32_t r) {
  return (r * (h & 0xffffu) + h % r) >> 16;
}
constexpr std::uint32_t rand_range(RangeMethod m, std::uint32_t h, std::uint32_t r) {
  return m == RangeMethod::jitter ? rand_range_jitter(h, r) : rand_range_fraction(h, r);
}

std::string_view range_method_name(RangeMethod m);  // "jitter", "fraction"

// uint name(uint seed, uint r) { uint h = hash(seed); return ...; }
Function lower_range(const std::string& name, const std::string& hash_function, RangeMethod method);

}  // namespace mixforge::shader
