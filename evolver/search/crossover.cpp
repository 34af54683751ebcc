#include "evolver/search/crossover.hpp"

#include <vector>

namespace mixforge::evolver {

bool same_shape(const mixer::Program& a, const mixer::Program& b) {
  if (a.width() != b.width() || a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a.steps()[i].kind != b.steps()[i].kind) return false;
  return true;
}

std::optional<mixer::Program> crossover(const mixer::Program& a, const mixer::Program& b, Rng& rng) {
  if (!same_shape(a, b)) return std::nullopt;
  std::vector<std::size_t> differ;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a.steps()[i].operand != b.steps()[i].operand) differ.push_back(i);
  if (differ.size() < 2) return std::nullopt;  // every child would equal a parent
  for (int attempt = 0; attempt < 8; ++attempt) {
    std::vector<mixer::Step> steps = a.steps();
    std::size_t from_b = 0;
    for (std::size_t i : differ)
      if (rng.chance(0.5)) {
        steps[i].operand = b.steps()[i].operand;
        ++from_b;
      }
    if (from_b > 0 && from_b < differ.size()) return mixer::Program(a.width(), std::move(steps));
  }
  return std::nullopt;
}

}  // namespace mixforge::evolver
