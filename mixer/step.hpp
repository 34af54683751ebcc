#pragma once
// One reversible mixing step: the nine kinds of docs/background.md.
#include <cstdint>
#include <optional>
#include <string_view>

namespace mixforge::mixer {

enum class StepKind : std::uint8_t {
  xor_const,       // x ^= c
  mul_const,       // x *= c      (c odd)
  add_const,       // x += c
  sub_const,       // x -= c
  xorshift_right,  // x ^= x >> k (1 <= k < n)
  xorshift_left,   // x ^= x << k
  add_shift,       // x += x << k
  sub_shift,       // x -= x << k
  rotate,          // x = rotl(x, k)
};
inline constexpr int step_kind_count = 9;

struct Step {
  StepKind kind = StepKind::xor_const;
  std::uint64_t operand = 0;  // the constant, or the shift / rotation amount
  friend bool operator==(const Step&, const Step&) = default;
};

// True for kinds whose operand is a shift or rotation amount (1..n-1).
constexpr bool takes_shift(StepKind k) {
  return k == StepKind::xorshift_right || k == StepKind::xorshift_left ||
         k == StepKind::add_shift || k == StepKind::sub_shift || k == StepKind::rotate;
}

// Long names ("xorshift-right") are the JSON form; short names ("xsr") the compact one.
std::string_view kind_name(StepKind k);
std::string_view kind_short_name(StepKind k);
// Accepts long or short names.
std::optional<StepKind> kind_from_name(std::string_view name);

}  // namespace mixforge::mixer
