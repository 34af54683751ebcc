#pragma once
// The reproducible counter-based input generator of sampled scoring. Sample k of a
// stream with seed s is a pure function of (s, k), so any range of samples can be
// computed anywhere (threads, JIT kernels, GPUs) and stages extend a run exactly.
#include <cstdint>

namespace mixforge::avalanche {

// SplitMix64's output function applied to the counter: x_k = mix(s + (k + 1) * golden).
constexpr std::uint64_t sample_input(std::uint64_t seed, std::uint64_t index) {
  std::uint64_t z = seed + (index + 1) * 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);  // callers mask to the width
}

}  // namespace mixforge::avalanche
