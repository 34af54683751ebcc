#pragma once
// The search's random number generator: xoshiro256** with a four-word state that is
// stored in checkpoints, and independent streams derived from (seed, stream index).
#include <array>
#include <cstdint>

namespace mixforge::evolver {

class Rng {
 public:
  using State = std::array<std::uint64_t, 4>;
  using result_type = std::uint64_t;

  Rng() : Rng(0, 0) {}
  // Stream `stream` of `seed`: the state is SplitMix64 output seeded by both.
  Rng(std::uint64_t seed, std::uint64_t stream) {
    std::uint64_t z = seed ^ (stream * 0xd1b54a32d192ed03ull + 0x8bb84b93962eacc9ull);
    for (auto& w : s_) w = splitmix(z);
  }
  explicit Rng(const State& state) : s_(state) {}
  const State& state() const { return s_; }

  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return ~result_type{0}; }
  result_type operator()() { return next(); }

  std::uint64_t next() {
    const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }
  // Uniform in [0, n), n > 0 (Lemire's multiply-shift with rejection: no modulo bias).
  std::uint64_t below(std::uint64_t n) {
    for (;;) {
      const unsigned __int128 m = static_cast<unsigned __int128>(next()) * n;
      const std::uint64_t low = static_cast<std::uint64_t>(m);
      if (low >= n || low >= (-n) % n) return static_cast<std::uint64_t>(m >> 64);
    }
  }
  // Uniform in [lo, hi].
  std::int64_t between(std::int64_t lo, std::int64_t hi) {
    return lo + static_cast<std::int64_t>(below(static_cast<std::uint64_t>(hi - lo) + 1));
  }
  // Uniform in [0, 1) with 53 bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  bool chance(double p) { return uniform() < p; }

  static std::uint64_t splitmix(std::uint64_t& z) {
    std::uint64_t r = (z += 0x9e3779b97f4a7c15ull);
    r = (r ^ (r >> 30)) * 0xbf58476d1ce4e5b9ull;
    r = (r ^ (r >> 27)) * 0x94d049bb133111ebull;
    return r ^ (r >> 31);
  }

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  State s_;
};

// A well-mixed 64-bit combination of two values (seeds for sub-streams and sample seeds).
inline std::uint64_t mix_seed(std::uint64_t a, std::uint64_t b) {
  std::uint64_t z = a ^ (b + 0x9e3779b97f4a7c15ull + (a << 6) + (a >> 2));
  return Rng::splitmix(z);
}

}  // namespace mixforge::evolver
