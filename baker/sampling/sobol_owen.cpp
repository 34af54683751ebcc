// Owen-scrambled Sobol' points: Burley, "Practical Hash-based Owen Scrambling" (JCGT
// 2020): the index is shuffled by a nested uniform scramble, then each of the two Sobol'
// dimensions is scrambled with its own seed (hash_combine(seed, dim)). The scrambler is
// pbrt-v4's FastOwenScrambler (Laine-Karras style permutation between bit reversals).
#include <bit>

#include "baker/sampling/hash_utils.hpp"
#include "baker/sampling/sampler.hpp"

namespace mixforge::baker {
namespace {

constexpr std::uint32_t reverse_bits(std::uint32_t v) {
  v = ((v >> 1) & 0x55555555u) | ((v & 0x55555555u) << 1);
  v = ((v >> 2) & 0x33333333u) | ((v & 0x33333333u) << 2);
  v = ((v >> 4) & 0x0f0f0f0fu) | ((v & 0x0f0f0f0fu) << 4);
  v = ((v >> 8) & 0x00ff00ffu) | ((v & 0x00ff00ffu) << 8);
  return (v >> 16) | (v << 16);
}

// pbrt-v4 src/pbrt/util/lowdiscrepancy.h, FastOwenScrambler.
constexpr std::uint32_t fast_owen(std::uint32_t v, std::uint32_t seed) {
  v = reverse_bits(v);
  v ^= v * 0x3d20adeau;
  v += seed;
  v *= (seed >> 16) | 1u;
  v ^= v * 0x05526c56u;
  v ^= v * 0x53a22864u;
  return reverse_bits(v);
}

// Burley's hash_combine.
constexpr std::uint32_t hash_combine(std::uint32_t seed, std::uint32_t v) {
  return seed ^ (v + (seed << 6) + (seed >> 2));
}

// The first two Sobol' dimensions: van der Corput and its (0,2)-sequence partner.
constexpr std::uint32_t sobol0(std::uint32_t index) { return reverse_bits(index); }
constexpr std::uint32_t sobol1(std::uint32_t index) {
  std::uint32_t v = 1u << 31, r = 0;
  for (; index; index >>= 1, v ^= v >> 1)
    if (index & 1u) r ^= v;
  return r;
}

class SobolOwen final : public TexelSeededSampler {
 public:
  SobolOwen(std::uint32_t count, std::uint64_t seed) : TexelSeededSampler(count, seed) {}
  std::string_view name() const override { return "sobol-owen"; }
  void generate(std::span<SamplerState> states, std::uint32_t s,
                std::span<Vec2> out) const override {
    for (std::size_t t = 0; t < states.size(); ++t) {
      const std::uint32_t seed = states[t].w[0];
      const std::uint32_t index = fast_owen(s, seed);
      out[t] = {unit_float(fast_owen(sobol0(index), hash_combine(seed, 0))),
                unit_float(fast_owen(sobol1(index), hash_combine(seed, 1)))};
    }
  }
};

}  // namespace

std::unique_ptr<Sampler> make_sobol_owen(std::uint32_t count, std::uint64_t seed) {
  return std::make_unique<SobolOwen>(count, seed);
}

}  // namespace mixforge::baker
