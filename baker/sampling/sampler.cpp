#include "baker/sampling/sampler.hpp"

#include "baker/sampling/hash_utils.hpp"
#include "baker/sampling/kensler_cmj.hpp"

#include <stdexcept>
#include <string>

namespace mixforge::baker {

std::uint64_t Sampler::pattern_seed(std::uint32_t pattern) const {
  if (pattern == 0) return seed_;
  return splitmix64(seed_ ^ splitmix64(0x6c62272e07bb0142ull + pattern));
}

std::uint32_t Sampler::pattern_index(std::uint32_t b, std::uint32_t pattern) const {
  if (pattern == 0) return b;
  // Kensler's hashed permutation of [0, N) (cycle walking: exact for any N).
  return kensler::permute(b, count_, static_cast<std::uint32_t>(pattern_seed(pattern) >> 32));
}

SamplerState TexelSeededSampler::start(std::uint32_t x, std::uint32_t y, std::uint32_t pass,
                                       std::uint32_t pattern) const {
  SamplerState st;
  st.w[0] = texel_seed(pattern_seed(pattern), x, y, pass);
  return st;
}

std::unique_ptr<Sampler> make_mixforge_cmj(std::uint32_t count, std::uint64_t seed,
                                           std::shared_ptr<const Mixer4> mixers);
std::unique_ptr<Sampler> make_kensler_cmj(std::uint32_t count, std::uint64_t seed);
std::unique_ptr<Sampler> make_pcg_sampler(std::uint32_t count, std::uint64_t seed);
std::unique_ptr<Sampler> make_sobol_owen(std::uint32_t count, std::uint64_t seed);
std::unique_ptr<Sampler> make_independent_sampler(std::uint32_t count, std::uint64_t seed);

std::string_view sampler_name(SamplerKind k) {
  switch (k) {
    case SamplerKind::mixforge_cmj: return "mixforge-cmj";
    case SamplerKind::kensler_cmj: return "kensler-cmj";
    case SamplerKind::pcg: return "pcg";
    case SamplerKind::sobol_owen: return "sobol-owen";
    case SamplerKind::independent: return "independent";
  }
  return "?";
}

SamplerKind sampler_from_name(std::string_view name) {
  for (SamplerKind k : all_sampler_kinds)
    if (sampler_name(k) == name) return k;
  throw std::invalid_argument("unknown sampler '" + std::string(name) +
                              "' (mixforge-cmj, kensler-cmj, pcg, sobol-owen, independent)");
}

std::unique_ptr<Sampler> make_sampler(SamplerKind kind, std::uint32_t count, std::uint64_t seed,
                                      std::shared_ptr<const Mixer4> mixers) {
  if (count == 0) throw std::invalid_argument("sample count must be at least 1");
  switch (kind) {
    case SamplerKind::mixforge_cmj: return make_mixforge_cmj(count, seed, std::move(mixers));
    case SamplerKind::kensler_cmj: return make_kensler_cmj(count, seed);
    case SamplerKind::pcg: return make_pcg_sampler(count, seed);
    case SamplerKind::sobol_owen: return make_sobol_owen(count, seed);
    case SamplerKind::independent: return make_independent_sampler(count, seed);
  }
  throw std::invalid_argument("unknown sampler kind");
}

CmjGrid cmj_grid(std::uint32_t count) {
  CmjGrid g{1, count};
  for (std::uint32_t m = 1; std::uint64_t{m} * m <= count; ++m)
    if (count % m == 0) g = {m, count / m};
  return g;
}

}  // namespace mixforge::baker
