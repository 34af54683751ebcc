#include "evolver/search/mutation.hpp"

#include <array>
#include <stdexcept>
#include <utility>

namespace mixforge::evolver {

std::string_view mutation_name(MutationKind kind) {
  switch (kind) {
    case MutationKind::constant_small: return "constant-small";
    case MutationKind::constant_large: return "constant-large";
    case MutationKind::swap: return "swap";
    case MutationKind::remove: return "remove";
    case MutationKind::insert: return "insert";
  }
  return "?";
}

bool nudge(mixer::Step& step, int width, Rng& rng) {
  const std::uint64_t mask = mixer::width_mask(width);
  if (mixer::takes_shift(step.kind)) {
    if (width <= 2) return false;
    for (;;) {
      const std::int64_t d = rng.below(2) ? (rng.below(4) ? 1 : 2) : (rng.below(4) ? -1 : -2);
      const std::int64_t k = static_cast<std::int64_t>(step.operand) + d;
      if (k >= 1 && k <= width - 1) {
        step.operand = static_cast<std::uint64_t>(k);
        return true;
      }
    }
  }
  const bool mul = step.kind == mixer::StepKind::mul_const;
  if (mul && width == 1) return false;  // 1 is the only odd 1-bit value
  for (int attempt = 0; attempt < 64; ++attempt) {
    std::uint64_t c = step.operand;
    if (rng.below(2)) {
      const int lowest = mul ? 1 : 0;  // keep a multiplier odd
      c ^= std::uint64_t{1} << rng.between(lowest, width - 1);
    } else {
      const std::uint64_t d = static_cast<std::uint64_t>(rng.between(1, 8)) * (mul ? 2 : 1);
      c = rng.below(2) ? c + d : c - d;
    }
    c &= mask;
    if (c != step.operand) {
      step.operand = c;
      return true;
    }
  }
  return false;
}

Mutated mutate(const mixer::Program& parent, const ProgramShape& shape, const MutationWeights& weights, Rng& rng) {
  const int n = parent.width();
  const std::vector<mixer::Step>& ps = parent.steps();
  const int size = static_cast<int>(ps.size());
  const bool locked = !shape.kind_sequence.empty();
  const std::vector<mixer::StepKind> kinds = usable_kinds(shape.kinds, n);

  // Can the five mutations apply to this parent?
  bool two_differ = false;
  for (int i = 1; i < size && !two_differ; ++i) two_differ = !(ps[i] == ps[0]);
  bool any_constant_moves = false;  // a step whose operand has another valid value
  for (const mixer::Step& s : ps)
    any_constant_moves |= mixer::takes_shift(s.kind) ? n > 2 : !(s.kind == mixer::StepKind::mul_const && n == 1);
  const std::array<double, mutation_kind_count> w{
      any_constant_moves ? weights.constant_small : 0.0,
      any_constant_moves ? weights.constant_large : 0.0,
      !locked && two_differ ? weights.swap : 0.0,
      !locked && size > shape.min_steps && size > 0 ? weights.remove : 0.0,
      !locked && size < shape.max_steps && !kinds.empty() ? weights.insert : 0.0,
  };
  double total = 0;
  for (double x : w) total += x;
  if (!(total > 0)) throw std::invalid_argument("no mutation applies to " + parent.canonical());

  double r = rng.uniform() * total;
  int pick = 0;
  while (pick < mutation_kind_count - 1 && (r >= w[pick] || w[pick] == 0)) {
    r -= w[pick];
    ++pick;
  }
  while (w[pick] == 0) --pick;  // rounding at the top end
  const auto kind = static_cast<MutationKind>(pick);

  std::vector<mixer::Step> steps = ps;
  switch (kind) {
    case MutationKind::constant_small:
    case MutationKind::constant_large: {
      for (;;) {
        mixer::Step& s = steps[rng.below(steps.size())];
        if (kind == MutationKind::constant_small) {
          if (nudge(s, n, rng)) break;
        } else {
          bool changed = false;
          for (int attempt = 0; attempt < 32 && !changed; ++attempt) {
            const std::uint64_t c = random_operand(s.kind, n, rng);
            changed = c != s.operand;
            s.operand = c;
          }
          if (changed || nudge(s, n, rng)) break;
        }
      }
      break;
    }
    case MutationKind::swap: {
      for (;;) {
        const std::size_t i = rng.below(steps.size()), j = rng.below(steps.size());
        if (!(steps[i] == steps[j])) {
          std::swap(steps[i], steps[j]);
          break;
        }
      }
      break;
    }
    case MutationKind::remove:
      steps.erase(steps.begin() + static_cast<std::ptrdiff_t>(rng.below(steps.size())));
      break;
    case MutationKind::insert:
      steps.insert(steps.begin() + static_cast<std::ptrdiff_t>(rng.below(steps.size() + 1)),
                   random_step(kinds, n, rng, &shape.kind_weights));
      break;
  }
  return {mixer::Program(n, std::move(steps)), kind};
}

}  // namespace mixforge::evolver
