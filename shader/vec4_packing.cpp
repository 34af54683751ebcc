#include "shader/vec4_packing.hpp"

#include <optional>

#include "mixer/interpreter.hpp"
#include "mixer/text_form.hpp"
#include "mixer/width.hpp"
#include "shader/program_lowering.hpp"

namespace mixforge::shader {

Function lower_vec4(const std::array<mixer::Program, 4>& lanes, bool seeded, const std::string& name,
                    ConstantStyle style, bool inverse) {
  static constexpr char lane_names[] = "xyzw";
  for (int i = 0; i < 4; ++i) {
    const std::string lane = std::string("lane ") + lane_names[i];
    try {
      mixer::validate(lanes[i]);
    } catch (const mixer::ProgramError& e) {
      throw ExportError(lane + ": " + e.what(), "programs/" + std::to_string(i));
    }
    if (lanes[i].width() > 32)
      throw ExportError(lane + " has width " + std::to_string(lanes[i].width()) +
                        "; 4-lane export packs 32-bit lanes, so lane widths must be 1..32",
                        "programs/" + std::to_string(i));
    if (lanes[i].size() != lanes[0].size())
      throw ExportError(lane + " has " + std::to_string(lanes[i].size()) + " steps but lane x has " +
                            std::to_string(lanes[0].size()) + "; packed lanes need the same step kinds (" +
                            mixer::format_short(lanes[0]) + " vs " + mixer::format_short(lanes[i]) + ")",
                        "programs/" + std::to_string(i));
    for (std::size_t k = 0; k < lanes[0].size(); ++k)
      if (lanes[i].steps()[k].kind != lanes[0].steps()[k].kind)
        throw ExportError(lane + " step " + std::to_string(k + 1) + " is " +
                              std::string(mixer::kind_name(lanes[i].steps()[k].kind)) + " but lane x has " +
                              std::string(mixer::kind_name(lanes[0].steps()[k].kind)) +
                              "; packed lanes need the same sequence of step kinds",
                          "programs/" + std::to_string(i));
  }
  Function f;
  f.name = name;
  f.result = Type::u32x4;
  f.params = {{"v", Type::u32x4}};
  std::array<int, 4> widths{};
  for (int i = 0; i < 4; ++i) widths[i] = lanes[i].width();
  // Short lanes repeat after 2^n inputs; xor-ing them with the seed gives every seed its
  // own permutation. 32-bit lanes take the seed through their input already. The
  // forward function xors before its first step, so its inverse xors after its last
  // (masked: the forward one masks the seeded input to the lane's width).
  std::optional<Stmt> seed_xor;
  if (seeded) {
    f.params.push_back({"seed", Type::u32});
    std::array<Expr, 4> s{Expr::constant(0, Type::u32, Radix::decimal), Expr::constant(0, Type::u32, Radix::decimal),
                          Expr::constant(0, Type::u32, Radix::decimal), Expr::constant(0, Type::u32, Radix::decimal)};
    std::array<std::uint64_t, 4> masks{};
    bool any = false;
    for (int i = 0; i < 4; ++i) {
      masks[i] = mixer::width_mask(widths[i]);
      if (widths[i] < 32) {
        s[i] = Expr::var("seed", Type::u32);
        any = true;
      }
    }
    Expr lanes_seed = Expr::construct(std::move(s));
    if (inverse) lanes_seed = Expr::binary(BinOp::bit_and, std::move(lanes_seed), Expr::lanes(masks, Radix::hex));
    if (any)
      seed_xor = assign("v", Type::u32x4, Expr::binary(BinOp::bit_xor, Expr::var("v", Type::u32x4), std::move(lanes_seed)));
  }
  if (seed_xor && !inverse) f.body.push_back(*seed_xor);
  std::vector<std::array<mixer::Step, 4>> steps;
  for (std::size_t k = 0; k < lanes[0].size(); ++k)
    steps.push_back({lanes[0].steps()[k], lanes[1].steps()[k], lanes[2].steps()[k], lanes[3].steps()[k]});
  lower_steps(f, "v", Type::u32x4, widths, steps, style);
  if (seed_xor && inverse) f.body.insert(f.body.end() - 1, *seed_xor);  // before "return v;"
  return f;
}

bool packable(const std::array<mixer::Program, 4>& lanes) {
  for (const mixer::Program& p : lanes) {
    if (p.width() > 32 || p.size() != lanes[0].size()) return false;
    for (std::size_t k = 0; k < p.size(); ++k)
      if (p.steps()[k].kind != lanes[0].steps()[k].kind) return false;
  }
  return true;
}

std::array<mixer::Program, 4> writeup_permute4() {
  const mixer::StepKind xsr = mixer::StepKind::xorshift_right, mul = mixer::StepKind::mul_const;
  auto lane = [&](int w, std::uint64_t s1, std::uint64_t m1, std::uint64_t s2, std::uint64_t m2, std::uint64_t s3) {
    return mixer::Program(w, {{xsr, s1}, {mul, m1}, {xsr, s2}, {mul, m2}, {xsr, s3}});
  };
  return {lane(7, 3, 107, 3, 69, 4), lane(7, 3, 67, 4, 21, 3),
          lane(32, 16, 322022693, 14, 3968764237u, 19), lane(32, 16, 322022693, 13, 2235360983u, 18)};
}

std::array<std::uint32_t, 4> reference_vec4(const std::array<mixer::Program, 4>& lanes, std::array<std::uint32_t, 4> v,
                                            bool seeded, std::uint32_t seed) {
  std::array<std::uint32_t, 4> out{};
  for (int i = 0; i < 4; ++i) {
    std::uint64_t x = v[i];
    if (seeded && lanes[i].width() < 32) x ^= seed;
    out[i] = static_cast<std::uint32_t>(mixer::apply(lanes[i], x));
  }
  return out;
}

}  // namespace mixforge::shader
