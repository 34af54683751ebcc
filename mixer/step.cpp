#include "mixer/step.hpp"

#include <array>

namespace mixforge::mixer {
namespace {
struct KindNames {
  StepKind kind;
  std::string_view name, short_name;
};
constexpr std::array<KindNames, step_kind_count> names{{
    {StepKind::xor_const, "xor-const", "xor"},
    {StepKind::mul_const, "mul-const", "mul"},
    {StepKind::add_const, "add-const", "add"},
    {StepKind::sub_const, "sub-const", "sub"},
    {StepKind::xorshift_right, "xorshift-right", "xsr"},
    {StepKind::xorshift_left, "xorshift-left", "xsl"},
    {StepKind::add_shift, "add-shift", "adds"},
    {StepKind::sub_shift, "sub-shift", "subs"},
    {StepKind::rotate, "rotate", "rot"},
}};
}  // namespace

std::string_view kind_name(StepKind k) { return names[static_cast<int>(k)].name; }
std::string_view kind_short_name(StepKind k) { return names[static_cast<int>(k)].short_name; }

std::optional<StepKind> kind_from_name(std::string_view name) {
  for (const auto& n : names)
    if (n.name == name || n.short_name == name) return n.kind;
  return std::nullopt;
}

}  // namespace mixforge::mixer
