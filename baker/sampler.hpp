#pragma once
// Sample sets for the hemisphere gather: N points in [0,1)^2 per texel. The integrator
// asks for sample s of every texel of a tile at once (one batch), s = 0..N-1 in order, so
// stateful generators (Godot's PCG chain) keep one state per texel.
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "baker/mixer4.hpp"
#include "baker/vec3.hpp"

namespace mixforge::baker {

struct SamplerState {
  std::uint32_t w[4] = {0, 0, 0, 0};
};

class Sampler {
 public:
  virtual ~Sampler() = default;
  virtual std::string_view name() const = 0;
  std::uint32_t count() const { return count_; }
  // The state of the texel at atlas (x, y) for pass `pass` (bounce) before sample 0.
  virtual SamplerState start(std::uint32_t x, std::uint32_t y, std::uint32_t pass) const = 0;
  // Sample s of each state's set (s is the same for all; calls come with s = 0, 1, ...).
  virtual void generate(std::span<SamplerState> states, std::uint32_t s,
                        std::span<Vec2> out) const = 0;

 protected:
  Sampler(std::uint32_t count, std::uint64_t seed) : count_(count), seed_(seed) {}
  std::uint32_t count_;
  std::uint64_t seed_;
};

// A sampler whose state is one 32-bit seed per (texel, pass): texel_seed() in w[0].
class TexelSeededSampler : public Sampler {
 public:
  SamplerState start(std::uint32_t x, std::uint32_t y, std::uint32_t pass) const override;

 protected:
  using Sampler::Sampler;
};

enum class SamplerKind { mixforge_cmj, kensler_cmj, pcg, sobol_owen, independent };
inline constexpr SamplerKind all_sampler_kinds[] = {
    SamplerKind::mixforge_cmj, SamplerKind::kensler_cmj, SamplerKind::pcg,
    SamplerKind::sobol_owen, SamplerKind::independent};
std::string_view sampler_name(SamplerKind k);  // "mixforge-cmj", ...
// Throws std::invalid_argument listing the valid names.
SamplerKind sampler_from_name(std::string_view name);

// mixers: used by mixforge-cmj only (required there).
std::unique_ptr<Sampler> make_sampler(SamplerKind kind, std::uint32_t count, std::uint64_t seed,
                                      std::shared_ptr<const Mixer4> mixers = nullptr);

// The m x n grid of a CMJ set of N samples: m the largest divisor of N with m <= sqrt(N)
// (so m * n == N exactly; a prime N gives 1 x N, still one sample per fine stratum).
struct CmjGrid {
  std::uint32_t m = 1, n = 1;
};
CmjGrid cmj_grid(std::uint32_t count);

}  // namespace mixforge::baker
