#include "baker/sampling/kensler_cmj.hpp"

#include <cmath>

#include "baker/sampling/hash_utils.hpp"
#include "baker/sampling/sampler.hpp"

namespace mixforge::baker {
namespace kensler {

// Listing 3 of the memo: a hash-based permutation of [0, l), cycle walking until the
// value falls inside the range.
std::uint32_t permute(std::uint32_t i, std::uint32_t l, std::uint32_t p) {
  std::uint32_t w = l - 1;
  w |= w >> 1;
  w |= w >> 2;
  w |= w >> 4;
  w |= w >> 8;
  w |= w >> 16;
  do {
    i ^= p;
    i *= 0xe170893d;
    i ^= p >> 16;
    i ^= (i & w) >> 4;
    i ^= p >> 8;
    i *= 0x0929eb3f;
    i ^= p >> 23;
    i ^= (i & w) >> 1;
    i *= 1 | p >> 27;
    i *= 0x6935fa69;
    i ^= (i & w) >> 11;
    i *= 0x74dcb303;
    i ^= (i & w) >> 2;
    i *= 0x9e501cc3;
    i ^= (i & w) >> 2;
    i *= 0xc860a3df;
    i &= w;
    i ^= i >> 5;
  } while (i >= l);
  return (i + p) % l;
}

// Listing 4: a hash to [0, 1).
float randfloat(std::uint32_t i, std::uint32_t p) {
  i ^= p;
  i ^= i >> 17;
  i ^= i >> 10;
  i *= 0xb36534e5;
  i ^= i >> 12;
  i ^= i >> 21;
  i *= 0x93fc4795;
  i ^= 0xdf6e307f;
  i ^= i >> 17;
  i *= 1 | p >> 18;
  return i * (1.0f / 4294967808.0f);
}

// Listing 5: any sample count N, m x n grid with m = floor(sqrt(N)), n = ceil(N / m).
Vec2 cmj(std::uint32_t s, std::uint32_t N, std::uint32_t p) {
  const int m = static_cast<int>(std::sqrt(static_cast<float>(N)));
  const int n = (static_cast<int>(N) + m - 1) / m;
  s = permute(s, N, p * 0x51633e2d);
  const int sx = static_cast<int>(permute(s % m, m, p * 0x68bc21eb));
  const int sy = static_cast<int>(permute(s / m, n, p * 0x02e5be93));
  const float jx = randfloat(s, p * 0x967a889b);
  const float jy = randfloat(s, p * 0x368cc8b7);
  return {(sx + (sy + jx) / n) / m, (s + jy) / N};
}

}  // namespace kensler

namespace {

class KenslerCmj final : public TexelSeededSampler {
 public:
  KenslerCmj(std::uint32_t count, std::uint64_t seed) : TexelSeededSampler(count, seed) {}
  std::string_view name() const override { return "kensler-cmj"; }
  void generate(std::span<SamplerState> states, std::uint32_t s,
                std::span<Vec2> out) const override {
    for (std::size_t t = 0; t < states.size(); ++t) out[t] = kensler::cmj(s, count_, states[t].w[0]);
  }
};

}  // namespace

std::unique_ptr<Sampler> make_kensler_cmj(std::uint32_t count, std::uint64_t seed) {
  return std::make_unique<KenslerCmj>(count, seed);
}

}  // namespace mixforge::baker
