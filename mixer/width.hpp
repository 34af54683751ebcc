#pragma once
// Widths: programs work on n-bit integers, n = 1..64, arithmetic mod 2^n.
#include <cstdint>

namespace mixforge::mixer {

inline constexpr int min_width = 1;
inline constexpr int max_width = 64;

constexpr bool valid_width(int n) { return n >= min_width && n <= max_width; }

constexpr std::uint64_t width_mask(int n) {
  return n >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << n) - 1;
}

}  // namespace mixforge::mixer
