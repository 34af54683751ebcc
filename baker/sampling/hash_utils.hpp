#pragma once
// Seed derivation shared by the samplers (not the sample values themselves).
#include <cstdint>

namespace mixforge::baker {

// SplitMix64's finaliser (Steele, Lea, Flood 2014): seeds per texel and pass.
constexpr std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

constexpr std::uint32_t texel_seed(std::uint64_t seed, std::uint32_t x, std::uint32_t y,
                                   std::uint32_t pass) {
  return static_cast<std::uint32_t>(
      splitmix64(splitmix64(seed ^ (std::uint64_t{pass} << 48)) ^
                 ((std::uint64_t{y} << 24) | x)));
}

// 24 high bits as a float in [0, 1).
constexpr float unit_float(std::uint32_t h) { return static_cast<float>(h >> 8) * 0x1p-24f; }

}  // namespace mixforge::baker
