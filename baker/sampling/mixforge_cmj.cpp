// mixforge-cmj: Kensler's correlated multi-jittered sets with the hashes replaced by a
// 4-lane mixforge family, for GPU-style stateless sampling:
// - lanes x, y key the column / row permutations: perm(i) is the rank of x(i ^ cx) among
//   x(k ^ cx), k < m. A bijection gives distinct keys, so the rank is an exact
//   permutation of [0, m) for any m, from a fixed trip count (no cycle walking, no
//   data-dependent loop).
// - lanes z, w give the jitters inside the fine cell.
// - sample s is the s-th cell of the m x n grid in Morton order, so consecutive samples
//   (and one batch: sample s of every texel of a tile) are one compact solid-angle patch.
#include <algorithm>
#include <stdexcept>

#include "baker/sampling/hash_utils.hpp"
#include "baker/sampling/morton.hpp"
#include "baker/sampling/sampler.hpp"

namespace mixforge::baker {
namespace {

class MixforgeCmj final : public Sampler {
 public:
  MixforgeCmj(std::uint32_t count, std::uint64_t seed, std::shared_ptr<const Mixer4> mixers)
      : Sampler(count, seed), grid_(cmj_grid(count)), mixers_(std::move(mixers)) {
    if (!mixers_) throw std::invalid_argument("mixforge-cmj needs a 4-lane mixer family");
    keys_ = std::max(grid_.m, grid_.n);
    order_.reserve(count);
    for (std::uint32_t j = 0; j < grid_.n; ++j)
      for (std::uint32_t i = 0; i < grid_.m; ++i) order_.push_back({i, j});
    std::sort(order_.begin(), order_.end(), [](const Cell& a, const Cell& b) {
      return morton2(a.i, a.j) < morton2(b.i, b.j);
    });
  }
  std::string_view name() const override { return "mixforge-cmj"; }
  SamplerState start(std::uint32_t x, std::uint32_t y, std::uint32_t pass,
                     std::uint32_t pattern) const override {
    SamplerState st;
    const std::uint32_t p = texel_seed(pattern_seed(pattern), x, y, pass);
    // Per-lane pattern constants (Kensler's multipliers decorrelate the lanes).
    st.w[0] = p * 0xa511e9b3u;
    st.w[1] = p * 0x63d83595u;
    st.w[2] = p * 0xa399d265u;
    st.w[3] = p * 0x711ad6a5u;
    return st;
  }
  void generate(std::span<SamplerState> states, std::uint32_t s,
                std::span<Vec2> out) const override {
    const Cell cell = order_[s];
    const std::size_t per = keys_ + 1;
    thread_local std::vector<Lanes> buffer;
    buffer.resize(states.size() * per);
    for (std::size_t t = 0; t < states.size(); ++t) {
      const auto& c = states[t].w;
      Lanes* in = &buffer[t * per];
      for (std::uint32_t k = 0; k < keys_; ++k) in[k] = {k ^ c[0], k ^ c[1], k ^ c[2], k ^ c[3]};
      in[keys_] = {s ^ c[0], s ^ c[1], s ^ c[2], s ^ c[3]};
    }
    mixers_->apply(buffer.data(), buffer.data(), buffer.size());
    const float m = static_cast<float>(grid_.m), n = static_cast<float>(grid_.n);
    for (std::size_t t = 0; t < states.size(); ++t) {
      const Lanes* h = &buffer[t * per];
      const std::uint32_t kx = h[cell.i][0], ky = h[cell.j][1];
      std::uint32_t sx = 0, sy = 0;
      for (std::uint32_t k = 0; k < grid_.m; ++k) sx += h[k][0] < kx;
      for (std::uint32_t k = 0; k < grid_.n; ++k) sy += h[k][1] < ky;
      const float jx = unit_float(h[keys_][2]), jy = unit_float(h[keys_][3]);
      out[t] = {(static_cast<float>(cell.i) + (static_cast<float>(sy) + jx) / n) / m,
                (static_cast<float>(cell.j) + (static_cast<float>(sx) + jy) / m) / n};
    }
  }

 private:
  struct Cell {
    std::uint32_t i, j;
  };
  CmjGrid grid_;
  std::shared_ptr<const Mixer4> mixers_;
  std::uint32_t keys_ = 1;
  std::vector<Cell> order_;  // cell of sample s: the grid's cells in Morton order
};

}  // namespace

std::unique_ptr<Sampler> make_mixforge_cmj(std::uint32_t count, std::uint64_t seed,
                                           std::shared_ptr<const Mixer4> mixers) {
  return std::make_unique<MixforgeCmj>(count, seed, std::move(mixers));
}

}  // namespace mixforge::baker
