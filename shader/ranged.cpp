#include "shader/ranged.hpp"

namespace mixforge::shader {

std::string_view range_method_name(RangeMethod m) {
  return m == RangeMethod::jitter ? "jitter" : "fraction";
}

Function lower_range(const std::string& name, const std::string& hash_function, RangeMethod method) {
  using B = BinOp;
  Function f;
  f.name = name;
  f.result = Type::u32;
  f.params = {{"seed", Type::u32}, {"r", Type::u32}};
  const Expr h = Expr::var("h", Type::u32), r = Expr::var("r", Type::u32);
  Stmt decl;
  decl.kind = Stmt::Kind::declare;
  decl.var = "h";
  decl.type = Type::u32;
  decl.value = Expr::call(hash_function, Type::u32, {Expr::var("seed", Type::u32)});
  f.body.push_back(decl);
  Expr scaled = Expr::binary(B::mul, r, Expr::binary(B::bit_and, h, Expr::constant(0xffff, Type::u32, Radix::hex)));
  if (method == RangeMethod::jitter) scaled = Expr::binary(B::add, std::move(scaled), Expr::binary(B::mod, h, r));
  Stmt ret;
  ret.kind = Stmt::Kind::ret;
  ret.value = Expr::binary(B::shr, std::move(scaled), Expr::constant(16, Type::u32, Radix::decimal));
  f.body.push_back(std::move(ret));
  f.comment = {std::string("A value in [0, r) for r in 1..65536 (") + std::string(range_method_name(method)) +
               (method == RangeMethod::jitter ? " method: 16.16 fraction of r plus h % r)."
                                               : " method: 16.16 fraction of r; biased unless r divides 65536).")};
  return f;
}

}  // namespace mixforge::shader
