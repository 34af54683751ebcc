// Independent uniform samples: every (texel, pass, sample) hashed on its own (SplitMix64),
// the plain Monte Carlo baseline.
#include "baker/sampling/hash_utils.hpp"
#include "baker/sampling/sampler.hpp"

namespace mixforge::baker {
namespace {

class IndependentSampler final : public Sampler {
 public:
  IndependentSampler(std::uint32_t count, std::uint64_t seed) : Sampler(count, seed) {}
  std::string_view name() const override { return "independent"; }
  SamplerState start(std::uint32_t x, std::uint32_t y, std::uint32_t pass,
                     std::uint32_t pattern) const override {
    SamplerState st;
    const std::uint64_t k = splitmix64(pattern_seed(pattern) ^ 0x5851f42d4c957f2dull) ^
                            ((std::uint64_t{pass} << 48) | (std::uint64_t{y} << 24) | x);
    st.w[0] = static_cast<std::uint32_t>(k);
    st.w[1] = static_cast<std::uint32_t>(k >> 32);
    return st;
  }
  void generate(std::span<SamplerState> states, std::uint32_t s,
                std::span<Vec2> out) const override {
    for (std::size_t t = 0; t < states.size(); ++t) {
      const std::uint64_t key = (std::uint64_t{states[t].w[1]} << 32) | states[t].w[0];
      const std::uint64_t h = splitmix64(splitmix64(key) + s);
      out[t] = {unit_float(static_cast<std::uint32_t>(h)),
                unit_float(static_cast<std::uint32_t>(h >> 32))};
    }
  }
};

}  // namespace

std::unique_ptr<Sampler> make_independent_sampler(std::uint32_t count, std::uint64_t seed) {
  return std::make_unique<IndependentSampler>(count, seed);
}

}  // namespace mixforge::baker
