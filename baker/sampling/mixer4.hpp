#pragma once
// A 4-lane mixing function (a same-kind vec4 family, shader/vec4_packing): what the
// mixforge-cmj sampler draws its permutation keys (lanes x, y) and jitters (z, w) from.
// Two implementations: the default family's C++ export compiled into the baker
// (default_mixers.hpp) and programs JIT-compiled through jit/ (jit_mixer4.hpp).
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "mixer/program.hpp"

namespace mixforge::baker {

using Lanes = std::array<std::uint32_t, 4>;

// A program of the family with its exact avalanche chi2 (absent when not scored).
struct MixerInfo {
  mixer::Program program;
  double chi2 = -1;  // < 0: not scored
  bool exact = false;
};

class Mixer4 {
 public:
  virtual ~Mixer4() = default;
  // out[k][l] = lane l's program applied to in[k][l]. in and out may alias.
  virtual void apply(const Lanes* in, Lanes* out, std::size_t n) const = 0;
  // The four lane programs in lane order, with their scores.
  virtual const std::vector<MixerInfo>& lanes() const = 0;
  // "compiled-in" or "jit".
  virtual std::string origin() const = 0;
};

}  // namespace mixforge::baker
