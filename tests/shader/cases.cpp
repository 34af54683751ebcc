#include "cases.hpp"

#include <cstdio>

#include "mixer/interpreter.hpp"
#include "mixer/inverse.hpp"
#include "shader/ranged.hpp"
#include "shader/vec4_packing.hpp"
#include "support/reference_functions.hpp"

namespace mixforge::test {

namespace {
using K = mixer::StepKind;

std::uint64_t splitmix(std::uint64_t& s) {
  std::uint64_t z = (s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// Inputs of a width: every value when 2^n <= count (repeated), else the low values,
// edge patterns and pseudo-random ones. Bits above the width are set on purpose in
// a quarter of the inputs: the exported functions mask their input like apply() does.
std::vector<std::uint64_t> inputs(int width, std::size_t count, std::uint64_t seed) {
  const std::uint64_t m = mixer::width_mask(width);
  std::vector<std::uint64_t> v(count);
  std::uint64_t s = seed;
  const bool all = width < 64 && (std::uint64_t{1} << width) <= count;
  for (std::size_t i = 0; i < count; ++i) {
    std::uint64_t x;
    if (all) x = i & m;
    else if (i < 65536) x = i;
    else if (i < 65536 + 64) x = m ^ (std::uint64_t{1} << (i % 64)) ;
    else x = splitmix(s) & m;
    const int type_bits = width > 32 ? 64 : 32;
    if (i % 4 == 3 && width < type_bits) x |= splitmix(s) & ~m & mixer::width_mask(type_bits);
    v[i] = x;
  }
  return v;
}

Case scalar_case(std::string label, const mixer::Program& p, bool inverse, std::size_t count) {
  Case c;
  c.label = std::move(label);
  c.kind = CaseKind::scalar;
  c.request.programs = {{p, std::nullopt}};
  c.request.inverse = inverse;
  c.request.name = "f_" + c.label;
  c.call = c.request.name;
  c.wide = p.width() > 32;
  c.count = count;
  const mixer::Program f = inverse ? mixforge::mixer::inverse(p) : p;
  std::vector<std::uint64_t> xs = inputs(p.width(), count, p.hash());
  if (inverse)  // feed the forward outputs, so the expected values are the original inputs too
    for (auto& x : xs) x = mixer::apply(p, x);
  for (std::uint64_t x : xs) {
    const std::uint64_t y = mixer::apply(f, x);
    c.input.push_back(static_cast<std::uint32_t>(x));
    c.expected.push_back(static_cast<std::uint32_t>(y));
    if (c.wide) {
      c.input.push_back(static_cast<std::uint32_t>(x >> 32));
      c.expected.push_back(static_cast<std::uint32_t>(y >> 32));
    }
  }
  return c;
}

Case range_case(std::string label, const mixer::Program& p, shader::RangeMethod method, std::size_t count) {
  Case c;
  c.label = std::move(label);
  c.kind = CaseKind::range;
  c.request.programs = {{p, std::nullopt}};
  c.request.range = method;
  c.request.name = "f_" + c.label;
  c.call = c.request.name + "_range";
  c.count = count;
  static constexpr std::uint32_t ranges[] = {1, 2, 3, 7, 100, 1000, 4096, 65535, 65536};
  std::uint64_t s = 7;
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint32_t seed = i < count / 2 ? static_cast<std::uint32_t>(i) : static_cast<std::uint32_t>(splitmix(s));
    const std::uint32_t r = i % 16 < 9 ? ranges[i % 16] : 1 + static_cast<std::uint32_t>(splitmix(s) % 65536);
    c.input.push_back(seed);
    c.input.push_back(r);
    c.expected.push_back(shader::rand_range(method, static_cast<std::uint32_t>(mixer::apply(p, seed)), r));
  }
  return c;
}

// inverse: the request exports the inverse of the lanes, fed the forward function's outputs
// (seeded with the same seed), so the expected values are the original inputs (masked to
// each lane's width).
Case vec4_case(std::string label, const std::array<mixer::Program, 4>& lanes, bool seeded, std::size_t count,
               bool inverse = false) {
  Case c;
  c.label = std::move(label);
  c.kind = CaseKind::vec4;
  c.request.vec4 = true;
  c.request.seeded = seeded;
  c.request.inverse = inverse;
  for (const mixer::Program& p : lanes) c.request.programs.push_back({p, std::nullopt});
  c.request.name = "f_" + c.label;
  c.call = c.request.name;
  c.count = count;
  std::uint64_t s = 99;
  for (std::size_t i = 0; i < count; ++i) {
    std::array<std::uint32_t, 4> v{};
    for (int l = 0; l < 4; ++l)
      v[l] = i < 65536 ? static_cast<std::uint32_t>((i >> (4 * l)) & 0xff) | static_cast<std::uint32_t>(i << 16)
                       : static_cast<std::uint32_t>(splitmix(s));
    const std::uint32_t seed = i < 65536 ? static_cast<std::uint32_t>(i * 2654435761u) : static_cast<std::uint32_t>(splitmix(s));
    if (inverse) {
      const auto y = shader::reference_vec4(lanes, v, seeded, seed);
      for (int l = 0; l < 4; ++l) c.input.push_back(y[l]);
      c.input.insert(c.input.end(), {seed, 0, 0, 0});
      for (int l = 0; l < 4; ++l)
        c.expected.push_back(static_cast<std::uint32_t>(v[l] & ((std::uint64_t{1} << lanes[l].width()) - 1)));
      continue;
    }
    for (int l = 0; l < 4; ++l) c.input.push_back(v[l]);
    c.input.insert(c.input.end(), {seed, 0, 0, 0});
    for (std::uint32_t y : shader::reference_vec4(lanes, v, seeded, seed)) c.expected.push_back(y);
  }
  return c;
}

mixer::Program prog(int w, std::vector<mixer::Step> steps) { return mixer::Program(w, std::move(steps)); }
}  // namespace

std::vector<Case> execution_cases(bool wide, std::size_t count) {
  // Programs that use every step kind at several widths, plus published ones.
  const mixer::Program lowbias32 = mixforge::test::lowbias32();
  const mixer::Program all32 = prog(32, {{K::xor_const, 0xdeadbeef},
                                         {K::add_const, 0x9e3779b9},
                                         {K::rotate, 13},
                                         {K::mul_const, 0x2c1b3c6d},
                                         {K::sub_const, 0x12345678},
                                         {K::xorshift_left, 7},
                                         {K::add_shift, 3},
                                         {K::sub_shift, 11},
                                         {K::xorshift_right, 17}});
  const mixer::Program w7 = prog(7, {{K::xorshift_right, 4},
                                     {K::mul_const, 67},
                                     {K::xorshift_right, 3},
                                     {K::mul_const, 101},
                                     {K::xorshift_right, 4}});
  const mixer::Program all13 = prog(13, {{K::add_const, 0x1abc},
                                         {K::rotate, 5},
                                         {K::mul_const, 0x1e35},
                                         {K::xorshift_left, 4},
                                         {K::sub_const, 0x0fed},
                                         {K::add_shift, 6},
                                         {K::sub_shift, 2},
                                         {K::xor_const, 0x1555},
                                         {K::xorshift_right, 7}});
  const mixer::Program all24 = prog(24, {{K::xorshift_right, 12},
                                         {K::mul_const, 0xa3c59b},
                                         {K::rotate, 9},
                                         {K::sub_shift, 5},
                                         {K::add_const, 0x123456},
                                         {K::xorshift_left, 10},
                                         {K::xor_const, 0xabcdef},
                                         {K::add_shift, 7},
                                         {K::sub_const, 0x0f0f0f},
                                         {K::xorshift_right, 11}});
  const mixer::Program one = prog(1, {{K::xor_const, 1}, {K::add_const, 1}, {K::mul_const, 1}});
  const mixer::Program splitmix64 = prog(64, {{K::xorshift_right, 30},
                                              {K::mul_const, 0xbf58476d1ce4e5b9ull},
                                              {K::xorshift_right, 27},
                                              {K::mul_const, 0x94d049bb133111ebull},
                                              {K::xorshift_right, 31}});
  const mixer::Program all48 = prog(48, {{K::add_const, 0x8000deadbeefull},
                                         {K::rotate, 29},
                                         {K::mul_const, 0xf1357aea2e63ull},
                                         {K::xorshift_left, 17},
                                         {K::sub_shift, 5},
                                         {K::add_shift, 21},
                                         {K::sub_const, 0x7fffffffffffull},
                                         {K::xor_const, 0xaaaa5555ffffull},
                                         {K::xorshift_right, 24}});
  const mixer::Program all64 = prog(64, {{K::xor_const, 0xfedcba9876543210ull},
                                         {K::rotate, 41},
                                         {K::add_shift, 33},
                                         {K::mul_const, 0xd6e8feb86659fd93ull},
                                         {K::xorshift_left, 9},
                                         {K::sub_const, 0x0123456789abcdefull},
                                         {K::sub_shift, 40},
                                         {K::add_const, 3},
                                         {K::xorshift_right, 32}});
  const mixer::Program all33 = prog(33, {{K::mul_const, 0x1a5a5a5a5ull},
                                         {K::rotate, 32},
                                         {K::xorshift_right, 16},
                                         {K::add_shift, 31},
                                         {K::xorshift_left, 1},
                                         {K::sub_shift, 8}});

  std::vector<Case> cases;
  cases.push_back(scalar_case("w32_lowbias32", lowbias32, false, count));
  cases.push_back(scalar_case("w32_all_kinds", all32, false, count));
  cases.push_back(scalar_case("w7_writeup", w7, false, count));
  cases.push_back(scalar_case("w13_all_kinds", all13, false, count));
  cases.push_back(scalar_case("w24_all_kinds", all24, false, count));
  cases.push_back(scalar_case("w1", one, false, count));
  cases.push_back(scalar_case("w32_lowbias32_inverse", lowbias32, true, count));
  cases.push_back(scalar_case("w24_all_kinds_inverse", all24, true, count));
  if (wide) {
    cases.push_back(scalar_case("w64_splitmix", splitmix64, false, count));
    cases.push_back(scalar_case("w48_all_kinds", all48, false, count));
    cases.push_back(scalar_case("w64_all_kinds", all64, false, count));
    cases.push_back(scalar_case("w33_all_kinds", all33, false, count));
    cases.push_back(scalar_case("w64_all_kinds_inverse", all64, true, count));
  }
  cases.push_back(range_case("range_jitter", lowbias32, shader::RangeMethod::jitter, count));
  cases.push_back(range_case("range_fraction", lowbias32, shader::RangeMethod::fraction, count));
  cases.push_back(vec4_case("permute4_writeup", shader::writeup_permute4(), true, count));
  cases.push_back(vec4_case("permute4_writeup_unseeded", shader::writeup_permute4(), false, count));
  // Mixed widths and every step kind in the lanes.
  const std::array<mixer::Program, 4> mixed{prog(5, {{K::add_const, 3},
                                                     {K::rotate, 2},
                                                     {K::mul_const, 13},
                                                     {K::xorshift_left, 1},
                                                     {K::sub_shift, 3},
                                                     {K::xor_const, 9},
                                                     {K::xorshift_right, 2},
                                                     {K::add_shift, 1},
                                                     {K::sub_const, 30}}),
                                            prog(16, {{K::add_const, 0xbeef},
                                                      {K::rotate, 7},
                                                      {K::mul_const, 0x2c2b},
                                                      {K::xorshift_left, 5},
                                                      {K::sub_shift, 9},
                                                      {K::xor_const, 0x1234},
                                                      {K::xorshift_right, 8},
                                                      {K::add_shift, 4},
                                                      {K::sub_const, 0xffff}}),
                                            prog(32, {{K::add_const, 0x9e3779b9},
                                                      {K::rotate, 31},
                                                      {K::mul_const, 0x7feb352d},
                                                      {K::xorshift_left, 13},
                                                      {K::sub_shift, 17},
                                                      {K::xor_const, 0xffffffff},
                                                      {K::xorshift_right, 15},
                                                      {K::add_shift, 2},
                                                      {K::sub_const, 1}}),
                                            prog(31, {{K::add_const, 0x7fffffff},
                                                      {K::rotate, 1},
                                                      {K::mul_const, 0x5bd1e995},
                                                      {K::xorshift_left, 30},
                                                      {K::sub_shift, 1},
                                                      {K::xor_const, 0x2aaaaaaa},
                                                      {K::xorshift_right, 30},
                                                      {K::add_shift, 16},
                                                      {K::sub_const, 0x12345}})};
  cases.push_back(vec4_case("vec4_mixed_all_kinds", mixed, true, count));
  // Lanes whose inverses have the same step kinds (shifts of at least half the width
  // invert in one step), seeded: the inverse must take the seed out after its steps.
  const std::array<mixer::Program, 4> invertible{
      prog(7, {{K::xorshift_right, 4}, {K::mul_const, 107}, {K::add_const, 0x55}, {K::xorshift_right, 5}}),
      prog(12, {{K::xorshift_right, 6}, {K::mul_const, 0x9e5}, {K::add_const, 0x123}, {K::xorshift_right, 7}}),
      prog(32,
           {{K::xorshift_right, 16}, {K::mul_const, 0x7feb352d}, {K::add_const, 0x9e3779b9}, {K::xorshift_right, 17}}),
      prog(31,
           {{K::xorshift_right, 16}, {K::mul_const, 0x5bd1e995}, {K::add_const, 0x2468ace}, {K::xorshift_right, 16}})};
  cases.push_back(vec4_case("vec4_seeded_inverse", invertible, true, count, true));
  cases.push_back(vec4_case("vec4_unseeded_inverse", invertible, false, count, true));
  return cases;
}

std::string compare(const Case& c, const std::vector<std::uint32_t>& actual) {
  if (actual.size() != c.expected.size())
    return c.label + ": got " + std::to_string(actual.size()) + " output words, expected " +
           std::to_string(c.expected.size());
  const int iw = c.in_words(), ow = c.out_words();
  std::string msg;
  std::size_t bad = 0;
  for (std::size_t i = 0; i < c.count; ++i) {
    bool same = true;
    for (int k = 0; k < ow; ++k) same = same && actual[i * ow + k] == c.expected[i * ow + k];
    if (same) continue;
    if (++bad <= 3) {
      auto words = [&](const std::vector<std::uint32_t>& v, std::size_t at, int n) {
        std::string s;
        char buf[16];
        for (int k = 0; k < n; ++k) {
          std::snprintf(buf, sizeof buf, "%s%08x", k ? " " : "", v[at + k]);
          s += buf;
        }
        return s;
      };
      msg += c.label + " item " + std::to_string(i) + ": input [" + words(c.input, i * iw, iw) + "] got [" +
             words(actual, i * ow, ow) + "] expected [" + words(c.expected, i * ow, ow) + "]\n";
    }
  }
  if (bad) msg += c.label + ": " + std::to_string(bad) + " of " + std::to_string(c.count) + " items differ\n";
  return msg;
}

}  // namespace mixforge::test
