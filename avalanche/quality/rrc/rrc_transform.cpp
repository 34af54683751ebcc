#include "avalanche/quality/rrc/rrc_transform.hpp"

#include <stdexcept>

namespace mixforge::avalanche::rrc {
namespace {

// Swap ever smaller halves (a handful of operations: this runs for every stream element).
std::uint64_t reverse_bits(std::uint64_t x, int width) {
  x = ((x >> 1) & 0x5555555555555555ull) | ((x & 0x5555555555555555ull) << 1);
  x = ((x >> 2) & 0x3333333333333333ull) | ((x & 0x3333333333333333ull) << 2);
  x = ((x >> 4) & 0x0f0f0f0f0f0f0f0full) | ((x & 0x0f0f0f0f0f0f0f0full) << 4);
  x = __builtin_bswap64(x);
  return x >> (64 - width);
}

}  // namespace

std::uint64_t width_mask(int width) { return width >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << width) - 1; }

std::vector<RrcTransform> rrc_transforms(int width) {
  if (width < 1 || width > 64) throw std::invalid_argument("rrc_transforms: width must be 1..64");
  std::vector<RrcTransform> out;
  out.reserve(static_cast<std::size_t>(4 * width));
  for (int kind = 0; kind < 4; ++kind)
    for (int r = 0; r < width; ++r) out.push_back({r, kind == 1 || kind == 3, kind == 2 || kind == 3});
  return out;
}

std::uint64_t apply(const RrcTransform& t, std::uint64_t i, int width) {
  const std::uint64_t m = width_mask(width);
  std::uint64_t x = i & m;
  if (t.reversed) x = reverse_bits(x, width);
  if (t.complemented) x = ~x & m;
  const int r = t.rotation % width;
  if (r == 0) return x;
  return ((x >> r) | (x << (width - r))) & m;
}

std::string transform_name(const RrcTransform& t) {
  std::string s;
  if (t.reversed) s += "reversed ";
  if (t.complemented) s += "complemented ";
  if (s.empty()) s = "counter ";
  return s + "ror " + std::to_string(t.rotation);
}

}  // namespace mixforge::avalanche::rrc
