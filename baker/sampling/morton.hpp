#pragma once
// Morton (Z-order) codes: consecutive codes are compact 2D patches.
#include <cstdint>

namespace mixforge::baker {

constexpr std::uint32_t spread_bits(std::uint32_t v) {  // 16 bits -> even bit positions
  v &= 0xffff;
  v = (v | (v << 8)) & 0x00ff00ff;
  v = (v | (v << 4)) & 0x0f0f0f0f;
  v = (v | (v << 2)) & 0x33333333;
  v = (v | (v << 1)) & 0x55555555;
  return v;
}
constexpr std::uint32_t morton2(std::uint32_t x, std::uint32_t y) {
  return spread_bits(x) | (spread_bits(y) << 1);
}

}  // namespace mixforge::baker
