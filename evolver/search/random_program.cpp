#include "evolver/search/random_program.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace mixforge::evolver {
namespace {

using u128 = unsigned __int128;

std::uint64_t mul_mod(std::uint64_t a, std::uint64_t b, std::uint64_t m) {
  return static_cast<std::uint64_t>(static_cast<u128>(a) * b % m);
}
std::uint64_t pow_mod(std::uint64_t b, std::uint64_t e, std::uint64_t m) {
  std::uint64_t r = 1 % m;
  b %= m;
  while (e) {
    if (e & 1) r = mul_mod(r, b, m);
    b = mul_mod(b, b, m);
    e >>= 1;
  }
  return r;
}

// A random prime in [lo, hi] (odd candidates), or 0 when none was found quickly.
std::uint64_t random_prime(std::uint64_t lo, std::uint64_t hi, Rng& rng) {
  if (hi < lo) return 0;
  for (int attempt = 0; attempt < 400; ++attempt) {
    std::uint64_t c = lo + rng.below(hi - lo + 1);
    c |= 1;
    if (c > hi) continue;
    if (is_prime(c)) return c;
  }
  return 0;
}

}  // namespace

bool is_prime(std::uint64_t n) {
  if (n < 2) return false;
  for (std::uint64_t p : {2ull, 3ull, 5ull, 7ull, 11ull, 13ull, 17ull, 19ull, 23ull, 29ull, 31ull, 37ull}) {
    if (n % p == 0) return n == p;
  }
  std::uint64_t d = n - 1;
  int s = 0;
  while ((d & 1) == 0) {
    d >>= 1;
    ++s;
  }
  // These bases decide primality for every n < 2^64.
  for (std::uint64_t a : {2ull, 3ull, 5ull, 7ull, 11ull, 13ull, 17ull, 19ull, 23ull, 29ull, 31ull, 37ull}) {
    std::uint64_t x = pow_mod(a, d, n);
    if (x == 1 || x == n - 1) continue;
    bool composite = true;
    for (int r = 1; r < s; ++r) {
      x = mul_mod(x, x, n);
      if (x == n - 1) {
        composite = false;
        break;
      }
    }
    if (composite) return false;
  }
  return true;
}

std::uint64_t random_shift(int width, Rng& rng) {
  if (width < 2) throw std::invalid_argument("no shift amount exists at width 1");
  const int hi = width - 1;
  // 3 in 4: a normal around n/2 with sd n/6; else uniform (keeps every amount reachable).
  if (rng.below(4) != 0) return static_cast<std::uint64_t>(rng.between(1, hi));
  const double u1 = std::max(rng.uniform(), 1e-300), u2 = rng.uniform();
  const double z = std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  const long k = std::lround(width / 2.0 + z * width / 6.0);
  return static_cast<std::uint64_t>(std::clamp<long>(k, 1, hi));
}

std::uint64_t random_multiplier(int width, Rng& rng) {
  const std::uint64_t mask = mixer::width_mask(width);
  if (width <= 2) return (rng.next() & mask) | 1;
  const std::uint64_t top = std::uint64_t{1} << (width - 1);  // large: top bit set
  const std::uint64_t roll = rng.below(10);
  if (roll < 5) {  // a large prime
    if (std::uint64_t p = random_prime(top, mask, rng)) return p;
  } else if (roll < 8) {  // p * q close to 2^n: p ~ 2^(n/2) +- a little, q = the largest fit
    const int half = width / 2;
    const std::uint64_t plo = std::uint64_t{1} << (half - 1);
    const std::uint64_t phi = (std::uint64_t{1} << half) + (std::uint64_t{1} << (half - 1));
    const std::uint64_t p = random_prime(std::max<std::uint64_t>(plo, 3), phi, rng);
    if (p) {
      const std::uint64_t qmax = mask / p;
      const std::uint64_t qmin = std::max<std::uint64_t>(3, (top + p - 1) / p);
      if (std::uint64_t q = random_prime(qmin, qmax, rng)) {
        const std::uint64_t m = p * q;
        if ((m & 1) && m <= mask) return m;
      }
    }
  }
  return (rng.next() & mask) | 1;
}

std::uint64_t random_operand(mixer::StepKind kind, int width, Rng& rng) {
  if (mixer::takes_shift(kind)) return random_shift(width, rng);
  if (kind == mixer::StepKind::mul_const) return random_multiplier(width, rng);
  return rng.next() & mixer::width_mask(width);
}

std::vector<mixer::StepKind> usable_kinds(const std::vector<mixer::StepKind>& kinds, int width) {
  std::vector<mixer::StepKind> out;
  for (mixer::StepKind k : kinds)
    if (width >= 2 || !mixer::takes_shift(k)) out.push_back(k);
  return out;
}

mixer::Step random_step(const std::vector<mixer::StepKind>& kinds, int width, Rng& rng, const KindWeights* weights) {
  mixer::StepKind k = kinds[rng.below(kinds.size())];
  if (weights) {
    double total = 0;
    for (mixer::StepKind c : kinds) total += (*weights)[static_cast<int>(c)];
    if (total > 0) {
      double r = rng.uniform() * total;
      for (mixer::StepKind c : kinds) {
        k = c;
        r -= (*weights)[static_cast<int>(c)];
        if (r < 0 && (*weights)[static_cast<int>(c)] > 0) break;
      }
    }
  }
  return mixer::Step{k, random_operand(k, width, rng)};
}

mixer::Program random_program(const ProgramShape& shape, Rng& rng) {
  std::vector<mixer::Step> steps;
  if (!shape.kind_sequence.empty()) {
    for (mixer::StepKind k : shape.kind_sequence) steps.push_back({k, random_operand(k, shape.width, rng)});
    return mixer::Program(shape.width, std::move(steps));
  }
  const std::vector<mixer::StepKind> kinds = usable_kinds(shape.kinds, shape.width);
  if (kinds.empty()) throw std::invalid_argument("no step kind is usable at this width");
  // Half the time max_steps, else uniform in min..max.
  const int n = rng.below(2) ? shape.max_steps
                             : static_cast<int>(rng.between(shape.min_steps, shape.max_steps));
  for (int i = 0; i < n; ++i) {
    mixer::Step s = random_step(kinds, shape.width, rng, &shape.kind_weights);
    for (int retry = 0; retry < 3 && !steps.empty() && kinds.size() > 1 && s.kind == steps.back().kind;
         ++retry)
      s = random_step(kinds, shape.width, rng, &shape.kind_weights);
    steps.push_back(s);
  }
  return mixer::Program(shape.width, std::move(steps));
}

}  // namespace mixforge::evolver
