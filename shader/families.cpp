#include "shader/families.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>
#include <string>

namespace mixforge::shader {

std::vector<Family> find_families(std::span<const FamilyCandidate> pool,
                                  std::span<const int> lane_widths, std::size_t max_results) {
  if (lane_widths.empty() || lane_widths.size() > 4)
    throw std::invalid_argument("a family has 1 to 4 lanes, got " + std::to_string(lane_widths.size()));
  for (int w : lane_widths)
    if (w < 1 || w > 32)
      throw std::invalid_argument("lane width " + std::to_string(w) + " is outside 1..32");

  std::map<int, double> best;  // width -> best chi2 in the pool
  for (const auto& c : pool) {
    if (!(c.chi2 >= 0) || !std::isfinite(c.chi2))
      throw std::invalid_argument("family candidate " + c.program.id() + " has a negative chi2 (" +
                                  std::to_string(c.chi2) + "): rank sampled scores by an upper bound");
    auto [it, fresh] = best.emplace(c.program.width(), c.chi2);
    if (!fresh) it->second = std::min(it->second, c.chi2);
  }
  auto ratio = [&](const FamilyCandidate& c) {
    const double b = best.at(c.program.width());
    if (b > 0) return c.chi2 / b;
    return c.chi2 == 0 ? 1.0 : std::numeric_limits<double>::infinity();
  };

  // Group by step-kind sequence; inside a group, candidates per width, best first.
  std::map<std::vector<mixer::StepKind>, std::map<int, std::vector<std::size_t>>> groups;
  for (std::size_t i = 0; i < pool.size(); ++i) {
    std::vector<mixer::StepKind> kinds;
    for (const mixer::Step& s : pool[i].program.steps()) kinds.push_back(s.kind);
    groups[kinds][pool[i].program.width()].push_back(i);
  }
  std::vector<Family> out;
  for (auto& [kinds, by_width] : groups) {
    Family f;
    f.kinds = kinds;
    std::map<int, std::size_t> next;  // width -> next unused rank
    std::map<int, std::set<std::string>> taken;
    for (auto& [w, idx] : by_width)
      std::stable_sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) { return pool[a].chi2 < pool[b].chi2; });
    bool complete = true;
    for (int w : lane_widths) {
      auto it = by_width.find(w);
      if (it == by_width.end()) { complete = false; break; }
      std::size_t& k = next[w];
      // Skip duplicates of a program already used by another lane of this width.
      while (k < it->second.size() && taken[w].count(pool[it->second[k]].program.canonical())) ++k;
      if (k == it->second.size()) { complete = false; break; }
      const std::size_t chosen = it->second[k++];
      taken[w].insert(pool[chosen].program.canonical());
      f.members.push_back(chosen);
      const double r = ratio(pool[chosen]);
      f.worst_ratio = std::max(f.worst_ratio, r);
      f.sum_ratio += r;
    }
    if (complete) out.push_back(std::move(f));
  }
  std::sort(out.begin(), out.end(), [](const Family& a, const Family& b) {
    if (a.worst_ratio != b.worst_ratio) return a.worst_ratio < b.worst_ratio;
    return a.sum_ratio < b.sum_ratio;
  });
  if (out.size() > max_results) out.resize(max_results);
  return out;
}

}  // namespace mixforge::shader
