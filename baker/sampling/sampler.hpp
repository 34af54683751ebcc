#pragma once
// Sample sets for the integrator: N points in [0,1)^2 per texel and pattern. The integrator
// asks for sample s of every texel of a tile at once (one batch), each s once, so stateful
// generators (Godot's PCG chain) keep one state per texel. Patterns are independently
// scrambled sets of the same kind, one per pair of integrand dimensions.
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "baker/sampling/mixer4.hpp"
#include "baker/scene/vec3.hpp"

namespace mixforge::baker {

// Pattern 0 is the gather's hemisphere directions (the Vulkan generator's too); pattern 1
// picks the emitter and the point on it for next-event estimation.
inline constexpr std::uint32_t hemisphere_pattern = 0;
inline constexpr std::uint32_t light_pattern = 1;

struct SamplerState {
  std::uint32_t w[4] = {0, 0, 0, 0};
};

class Sampler {
 public:
  virtual ~Sampler() = default;
  virtual std::string_view name() const = 0;
  std::uint32_t count() const { return count_; }
  // The state of the texel at atlas (x, y) for pass `pass` (bounce) and pattern `pattern`
  // before its first sample.
  virtual SamplerState start(std::uint32_t x, std::uint32_t y, std::uint32_t pass,
                             std::uint32_t pattern) const = 0;
  // Sample s of each state's set (s is the same for all; each s in [0, N) comes once per
  // state; stateful generators ignore it and return their next point).
  virtual void generate(std::span<SamplerState> states, std::uint32_t s,
                        std::span<Vec2> out) const = 0;
  // The index that batch b of `pattern` draws: b for pattern 0, else a permutation of
  // [0, N) keyed by the seed and pattern. The same for every texel, so a mixforge-cmj batch
  // stays one stratum of each pattern (coherent rays), but not the stratum pattern 0 has at
  // the same index (mixforge-cmj orders its samples by stratum).
  std::uint32_t pattern_index(std::uint32_t b, std::uint32_t pattern) const;

 protected:
  Sampler(std::uint32_t count, std::uint64_t seed) : count_(count), seed_(seed) {}
  // The seed a pattern's sets derive from: the user's seed for pattern 0 (so its points do
  // not depend on whether other patterns exist), a hash of it and the pattern otherwise.
  std::uint64_t pattern_seed(std::uint32_t pattern) const;
  std::uint32_t count_;
  std::uint64_t seed_;
};

// A sampler whose state is one 32-bit seed per (texel, pass, pattern): texel_seed() in w[0].
class TexelSeededSampler : public Sampler {
 public:
  SamplerState start(std::uint32_t x, std::uint32_t y, std::uint32_t pass,
                     std::uint32_t pattern) const override;

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
