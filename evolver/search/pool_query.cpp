#include "evolver/search/pool_query.hpp"

#include "evolver/search/pool.hpp"

namespace mixforge::evolver {

std::uint32_t kind_mask(const mixer::Program& p) {
  std::uint32_t m = 0;
  for (const mixer::Step& s : p.steps()) m |= std::uint32_t{1} << static_cast<int>(s.kind);
  return m;
}

std::uint32_t kind_mask(const std::vector<mixer::StepKind>& kinds) {
  std::uint32_t m = 0;
  for (mixer::StepKind k : kinds) m |= std::uint32_t{1} << static_cast<int>(k);
  return m;
}

bool PoolQuery::matches(const Member& m) const {
  const int steps = static_cast<int>(m.program.size());
  if (min_steps && steps < *min_steps) return false;
  if (max_steps && steps > *max_steps) return false;
  const std::uint32_t used = kind_mask(m.program);
  if (kinds && (used & ~kind_mask(*kinds)) != 0) return false;
  if (uses_kind && !(used & (std::uint32_t{1} << static_cast<int>(*uses_kind)))) return false;
  if (max_chi2 && !(m.estimate.chi2 <= *max_chi2)) return false;
  if (exact_only && !m.estimate.exact) return false;
  return true;
}

bool PoolQuery::before(const Member& a, const Member& b) const {
  auto key = [&](const Member& m) -> double {
    switch (order) {
      case Order::chi2: return m.estimate.rank();
      case Order::born: return static_cast<double>(m.born);
      case Order::steps: return static_cast<double>(m.program.size());
    }
    return 0;
  };
  const double ka = key(a), kb = key(b);
  if (ka != kb) return descending ? ka > kb : ka < kb;
  return a.hash < b.hash;
}

}  // namespace mixforge::evolver
