#pragma once
// Kensler's correlated multi-jittered sampling as published (Pixar Technical Memo 13-01,
// 2013): his permute() with cycle walking, his randfloat(), and the any-N cmj().
#include <cstdint>

#include "baker/scene/vec3.hpp"

namespace mixforge::baker::kensler {

std::uint32_t permute(std::uint32_t i, std::uint32_t l, std::uint32_t p);
float randfloat(std::uint32_t i, std::uint32_t p);
// Sample s of the N-sample pattern p (aspect a = 1).
Vec2 cmj(std::uint32_t s, std::uint32_t N, std::uint32_t p);

}  // namespace mixforge::baker::kensler
