#pragma once
// Pelle Evensen's RRC streams: a mixer is fed the counter 0, 1, 2, ... through every
// rotation, with and without bit reversal and complement, so that the slowly changing high
// counter bits (and the fast low ones) reach every input position. 4n transforms for an
// n-bit mixer; stream T of f is f(T(0)), f(T(1)), ...
#include <cstdint>
#include <string>
#include <vector>

namespace mixforge::avalanche::rrc {

struct RrcTransform {
  int rotation = 0;           // right rotation by this many bits, applied last
  bool reversed = false;      // bit order reversed first
  bool complemented = false;  // all bits flipped
};

// The 4n transforms in a fixed order: identity, reversed, complemented, reversed and
// complemented, each with rotations 0..n-1. Width 1..64.
std::vector<RrcTransform> rrc_transforms(int width);

// The low `width` bits set.
std::uint64_t width_mask(int width);

// T(i) within `width` bits: ror(~?(reverse?(i)), rotation).
std::uint64_t apply(const RrcTransform& t, std::uint64_t i, int width);

// "counter ror 5", "reversed ror 0", "complemented ror 17", "reversed complemented ror 3".
std::string transform_name(const RrcTransform& t);

}  // namespace mixforge::avalanche::rrc
