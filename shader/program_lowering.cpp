#include "shader/program_lowering.hpp"

#include "mixer/text_form.hpp"
#include "mixer/width.hpp"

namespace mixforge::shader {
namespace {

bool may_overflow(mixer::StepKind k) { return k != mixer::StepKind::xor_const && k != mixer::StepKind::xorshift_right; }

// Lane-wise view of one step: operands and widths per lane (scalars use lane 0 only).
struct LaneStep {
  mixer::StepKind kind;
  std::array<std::uint64_t, 4> operand;
  std::array<int, 4> width;
};

// x op c for this step, without the mask.
Expr step_expr(const LaneStep& s, const Expr& x, Type t, Radix style) {
  const bool vec = is_vector(t);
  const Type shift_type = vec ? Type::u32x4 : Type::u32;
  auto konst = [&](std::array<std::uint64_t, 4> v, Type type, Radix r) {
    return vec ? Expr::lanes(v, r) : Expr::constant(v[0], type, r);
  };
  auto operand = [&] { return konst(s.operand, t, style); };
  auto shift = [&](std::array<std::uint64_t, 4> v) { return konst(v, shift_type, Radix::decimal); };
  using B = BinOp;
  switch (s.kind) {
    case mixer::StepKind::xor_const: return Expr::binary(B::bit_xor, x, operand());
    case mixer::StepKind::mul_const: return Expr::binary(B::mul, x, operand());
    case mixer::StepKind::add_const: return Expr::binary(B::add, x, operand());
    case mixer::StepKind::sub_const: return Expr::binary(B::sub, x, operand());
    case mixer::StepKind::xorshift_right: return Expr::binary(B::bit_xor, x, Expr::binary(B::shr, x, shift(s.operand)));
    case mixer::StepKind::xorshift_left: return Expr::binary(B::bit_xor, x, Expr::binary(B::shl, x, shift(s.operand)));
    case mixer::StepKind::add_shift: return Expr::binary(B::add, x, Expr::binary(B::shl, x, shift(s.operand)));
    case mixer::StepKind::sub_shift: return Expr::binary(B::sub, x, Expr::binary(B::shl, x, shift(s.operand)));
    case mixer::StepKind::rotate: {
      std::array<std::uint64_t, 4> back{};
      for (int i = 0; i < 4; ++i) back[i] = static_cast<std::uint64_t>(s.width[i]) - s.operand[i];
      return Expr::binary(B::bit_or, Expr::binary(B::shl, x, shift(s.operand)),
                          Expr::binary(B::shr, x, shift(back)));
    }
  }
  return x;
}

}  // namespace

Stmt assign(const std::string& var, Type t, Expr value) {
  Stmt s;
  s.kind = Stmt::Kind::assign;
  s.var = var;
  s.type = t;
  s.value = std::move(value);
  return s;
}

Stmt ret(Expr value) {
  Stmt s;
  s.kind = Stmt::Kind::ret;
  s.value = std::move(value);
  return s;
}

// The body shared by scalar and vector functions.
void lower_steps(Function& f, const std::string& var, Type t, const std::array<int, 4>& widths,
                 const std::vector<std::array<mixer::Step, 4>>& steps, ConstantStyle style) {
  const int lanes = is_vector(t) ? 4 : 1;
  const int bits = bits_of(t);
  bool narrow = false;
  std::array<std::uint64_t, 4> masks{};
  for (int i = 0; i < lanes; ++i) {
    masks[i] = mixer::width_mask(widths[i]);
    narrow = narrow || widths[i] < bits;
  }
  const Expr x = Expr::var(var, t);
  const Expr mask = is_vector(t) ? Expr::lanes(masks, Radix::hex) : Expr::constant(masks[0], t, Radix::hex);
  const Radix radix = style == ConstantStyle::hex ? Radix::hex : Radix::decimal;
  if (narrow) f.body.push_back(assign(var, t, Expr::binary(BinOp::bit_and, x, mask)));
  for (const auto& st : steps) {
    LaneStep ls{st[0].kind, {}, {}};
    for (int i = 0; i < 4; ++i) {
      ls.operand[i] = st[i < lanes ? i : 0].operand;
      ls.width[i] = widths[i < lanes ? i : 0];
    }
    Expr e = step_expr(ls, x, t, radix);
    if (narrow && may_overflow(ls.kind)) e = Expr::binary(BinOp::bit_and, std::move(e), mask);
    f.body.push_back(assign(var, t, std::move(e)));
  }
  f.body.push_back(ret(x));
}

Function lower_scalar(const mixer::Program& program, const std::string& name, ConstantStyle style) {
  mixer::validate(program);
  const Type t = program.width() > 32 ? Type::u64 : Type::u32;
  Function f;
  f.name = name;
  f.result = t;
  f.params = {{"x", t}};
  std::vector<std::array<mixer::Step, 4>> steps;
  for (const mixer::Step& s : program.steps()) steps.push_back({s, s, s, s});
  const int w = program.width();
  lower_steps(f, "x", t, {w, w, w, w}, steps, style);
  return f;
}

}  // namespace mixforge::shader
