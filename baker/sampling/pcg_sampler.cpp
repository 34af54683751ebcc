// White noise as Godot's LightmapGI draws it (modules/lightmapper_rd/lm_compute.glsl):
// hash() is the PCG-based integer hash from Jarzynski and Olano (JCGT 2020, via Nathan
// Reed's blog), the texel's stream starts at random_seed(ivec3(ray_from, atlas_pos)) and
// every random number is value = hash(value). ray_from is the first ray of the pass;
// here pass * N (one dispatch per bounce). The user's seed is xor-ed into atlas y (seed
// 0 is Godot's exact stream); other patterns xor their own seed (Sampler::pattern_seed).
#include "baker/sampling/hash_utils.hpp"
#include "baker/sampling/sampler.hpp"

namespace mixforge::baker {
namespace {

constexpr std::uint32_t godot_hash(std::uint32_t value) {
  const std::uint32_t state = value * 747796405u + 2891336453u;
  const std::uint32_t word = ((state >> ((state >> 28u) + 4u)) ^ state) * 277803737u;
  return (word >> 22u) ^ word;
}
constexpr std::uint32_t random_seed(std::uint32_t x, std::uint32_t y, std::uint32_t z) {
  return godot_hash(x ^ godot_hash(y ^ godot_hash(z)));
}

class PcgSampler final : public Sampler {
 public:
  PcgSampler(std::uint32_t count, std::uint64_t seed) : Sampler(count, seed) {}
  std::string_view name() const override { return "pcg"; }
  SamplerState start(std::uint32_t x, std::uint32_t y, std::uint32_t pass,
                     std::uint32_t pattern) const override {
    SamplerState st;
    st.w[0] = random_seed(pass * count_, x, y ^ static_cast<std::uint32_t>(pattern_seed(pattern)));
    return st;
  }
  void generate(std::span<SamplerState> states, std::uint32_t,
                std::span<Vec2> out) const override {
    for (std::size_t t = 0; t < states.size(); ++t) {
      std::uint32_t& v = states[t].w[0];
      v = godot_hash(v);
      const float u1 = static_cast<float>(v / 4294967296.0);
      v = godot_hash(v);
      const float u2 = static_cast<float>(v / 4294967296.0);
      // float(v / 2^32) rounds values near 2^32 up to 1.0; keep the square half-open.
      out[t] = {u1 < 1.0f ? u1 : 0x1.fffffep-1f, u2 < 1.0f ? u2 : 0x1.fffffep-1f};
    }
  }
};

}  // namespace

std::unique_ptr<Sampler> make_pcg_sampler(std::uint32_t count, std::uint64_t seed) {
  return std::make_unique<PcgSampler>(count, seed);
}

}  // namespace mixforge::baker
