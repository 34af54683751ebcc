#include "shader/code_model.hpp"

#include <stdexcept>

namespace mixforge::shader {

Expr Expr::var(std::string name, Type type) {
  Expr e;
  e.kind = Kind::variable;
  e.name = std::move(name);
  e.type = type;
  return e;
}

Expr Expr::constant(std::uint64_t v, Type type, Radix radix) {
  Expr e;
  e.kind = Kind::constant;
  e.type = type;
  e.value = {v, v, v, v};
  e.radix = radix;
  return e;
}

Expr Expr::lanes(std::array<std::uint64_t, 4> v, Radix radix) {
  Expr e;
  e.kind = Kind::constant;
  e.type = Type::u32x4;
  e.value = v;
  e.radix = radix;
  return e;
}

Expr Expr::binary(BinOp op, Expr lhs, Expr rhs) {
  Expr e;
  e.kind = Kind::binary;
  e.type = lhs.type;
  e.op = op;
  e.args.push_back(std::move(lhs));
  e.args.push_back(std::move(rhs));
  return e;
}

Expr Expr::call(std::string name, Type type, std::vector<Expr> args) {
  Expr e;
  e.kind = Kind::call;
  e.name = std::move(name);
  e.type = type;
  e.args = std::move(args);
  return e;
}

Expr Expr::construct(std::array<Expr, 4> lanes) {
  Expr e;
  e.kind = Kind::construct;
  e.type = Type::u32x4;
  for (auto& l : lanes) e.args.push_back(std::move(l));
  return e;
}

Expr Expr::component(std::string vector, int lane) {
  Expr e;
  e.kind = Kind::component;
  e.type = Type::u32;
  e.name = std::move(vector);
  e.lane = lane;
  return e;
}

bool is_vector(Type t) { return t == Type::u32x4; }
int bits_of(Type t) { return t == Type::u64 ? 64 : 32; }

namespace {
bool expr_uses(const Expr& e, Type t) {
  if (e.type == t) return true;
  for (const Expr& a : e.args)
    if (expr_uses(a, t)) return true;
  return false;
}

bool is_const(const Expr& e, std::uint64_t v) {
  return e.kind == Expr::Kind::constant && e.value[0] == v;
}

// One lane of a vector expression, with the identities x ^ 0, x | 0, x & 0xffffffff
// folded so per-lane code carries no dead operations.
Expr lane_of(const Expr& e, int lane, const std::vector<std::string>& vectors) {
  switch (e.kind) {
    case Expr::Kind::variable:
      if (e.type == Type::u32x4) return Expr::component(e.name, lane);
      return e;
    case Expr::Kind::constant:
      if (e.type == Type::u32x4) return Expr::constant(e.value[lane], Type::u32, e.radix);
      return e;
    case Expr::Kind::construct:
      return e.args[lane];
    case Expr::Kind::binary: {
      Expr l = lane_of(e.args[0], lane, vectors);
      Expr r = lane_of(e.args[1], lane, vectors);
      if ((e.op == BinOp::bit_xor || e.op == BinOp::bit_or) && is_const(r, 0)) return l;
      if (e.op == BinOp::bit_and && is_const(r, 0xffffffffu)) return l;
      return Expr::binary(e.op, std::move(l), std::move(r));
    }
    case Expr::Kind::call:
    case Expr::Kind::component:
      if (e.type == Type::u32x4) throw std::logic_error("scalarise: vector call is not supported");
      return e;
  }
  return e;
}
}  // namespace

bool uses_type(const Module& m, Type t) {
  for (const Function& f : m.functions) {
    if (f.result == t) return true;
    for (const Param& p : f.params)
      if (p.type == t) return true;
    for (const Stmt& s : f.body)
      if ((s.kind == Stmt::Kind::declare && s.type == t) || expr_uses(s.value, t)) return true;
  }
  return false;
}

Function scalarise(const Function& f) {
  Function out = f;
  out.body.clear();
  std::vector<std::string> vectors;
  for (const Param& p : f.params)
    if (is_vector(p.type)) vectors.push_back(p.name);
  for (const Stmt& s : f.body) {
    const bool vec = s.kind == Stmt::Kind::ret ? is_vector(s.value.type)
                                               : is_vector(s.value.type) || is_vector(s.type);
    if (!vec || s.kind == Stmt::Kind::ret) {
      out.body.push_back(s);
      continue;
    }
    if (s.kind == Stmt::Kind::declare) throw std::logic_error("scalarise: vector locals are not supported");
    for (int lane = 0; lane < 4; ++lane) {
      Expr v = lane_of(s.value, lane, vectors);
      if (v.kind == Expr::Kind::component && v.name == s.var && v.lane == lane) continue;  // x = x
      Stmt t;
      t.kind = Stmt::Kind::assign;
      t.var = s.var;
      t.type = Type::u32;
      t.lane = lane;
      t.value = std::move(v);
      out.body.push_back(std::move(t));
    }
  }
  return out;
}

}  // namespace mixforge::shader
