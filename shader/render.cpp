// The one renderer: walks the code model and spells it with a target's syntax table.
#include <cstdio>
#include <set>

#include "shader/target_syntax.hpp"

namespace mixforge::shader {
namespace {

std::string_view op_text(BinOp op) {
  switch (op) {
    case BinOp::bit_xor: return "^";
    case BinOp::bit_and: return "&";
    case BinOp::bit_or: return "|";
    case BinOp::add: return "+";
    case BinOp::sub: return "-";
    case BinOp::mul: return "*";
    case BinOp::shl: return "<<";
    case BinOp::shr: return ">>";
    case BinOp::mod: return "%";
  }
  return "?";
}

class Renderer {
 public:
  Renderer(const TargetSyntax& s, std::string helper) : s_(s), helper_(std::move(helper)) {}

  std::string type(Type t) const {
    switch (t) {
      case Type::u32: return std::string(s_.u32);
      case Type::u64:
        if (s_.u64.empty())
          throw ExportError(std::string(target_name(s_.target)) +
                            " cannot export widths above 32: " + std::string(s_.why_no_u64));
        return std::string(s_.u64);
      case Type::u32x4: return std::string(s_.u32x4);
    }
    return {};
  }

  std::string scalar_literal(std::uint64_t v, Type t, Radix radix) {
    char buf[48];
    const bool wide = t == Type::u64;
    if (wide && s_.u64_literal_helper && v > 0xffffffffu) {
      used_helper_ = true;
      std::snprintf(buf, sizeof buf, "(0x%xu, 0x%xu)", static_cast<unsigned>(v >> 32),
                    static_cast<unsigned>(v & 0xffffffffu));
      return helper_ + buf;
    }
    const std::string_view suffix = wide && v > 0xffffffffu ? s_.u64_suffix : s_.u32_suffix;
    if (radix == Radix::hex)
      std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
    else
      std::snprintf(buf, sizeof buf, "%llu", static_cast<unsigned long long>(v));
    return buf + std::string(suffix);
  }

  // Nested binary expressions are always parenthesised: WGSL forbids mixing some
  // operators without parentheses, and it reads unambiguously everywhere.
  std::string expr(const Expr& e, bool nested) {
    switch (e.kind) {
      case Expr::Kind::variable: return e.name;
      case Expr::Kind::component: return e.name + std::string(s_.lane_accessor[e.lane]);
      case Expr::Kind::constant:
        if (e.type == Type::u32x4) {
          std::string out = std::string(s_.vector_constructor) + "(";
          for (int i = 0; i < 4; ++i)
            out += (i ? ", " : "") + scalar_literal(e.value[i], Type::u32, e.radix);
          return out + ")";
        }
        return scalar_literal(e.value[0], e.type, e.radix);
      case Expr::Kind::construct: {
        std::string out = std::string(s_.vector_constructor) + "(";
        for (int i = 0; i < 4; ++i) out += (i ? ", " : "") + expr(e.args[i], false);
        return out + ")";
      }
      case Expr::Kind::call: {
        std::string out = e.name + "(";
        for (std::size_t i = 0; i < e.args.size(); ++i) out += (i ? ", " : "") + expr(e.args[i], false);
        return out + ")";
      }
      case Expr::Kind::binary: {
        std::string out = expr(e.args[0], true) + " " + std::string(op_text(e.op)) + " " +
                          expr(e.args[1], true);
        return nested ? "(" + out + ")" : out;
      }
    }
    return {};
  }

  std::string target_of(const Stmt& st) const {
    return st.lane >= 0 ? st.var + std::string(s_.lane_accessor[st.lane]) : st.var;
  }

  std::string stmt(const Stmt& st) {
    switch (st.kind) {
      case Stmt::Kind::ret: return "return " + expr(st.value, false) + ";";
      case Stmt::Kind::declare:
        if (s_.type_after_name)
          return std::string(s_.local_keyword) + " " + st.var + ": " + type(st.type) + " = " +
                 expr(st.value, false) + ";";
        return type(st.type) + " " + st.var + " = " + expr(st.value, false) + ";";
      case Stmt::Kind::assign: {
        const std::string lhs = target_of(st);
        const Expr& v = st.value;
        // x = x op e  ->  x op= e
        if (v.kind == Expr::Kind::binary) {
          const Expr& a = v.args[0];
          const bool same = st.lane >= 0
                                ? a.kind == Expr::Kind::component && a.name == st.var && a.lane == st.lane
                                : a.kind == Expr::Kind::variable && a.name == st.var;
          if (same)
            return lhs + " " + std::string(op_text(v.op)) + "= " + expr(v.args[1], false) + ";";
        }
        return lhs + " = " + expr(v, false) + ";";
      }
    }
    return {};
  }

  std::string function(const Function& f0) {
    const Function f = s_.vector_constructor.empty() && !s_.u32x4.empty() ? scalarise(f0) : f0;
    std::set<std::string> assigned;
    for (const Stmt& st : f.body)
      if (st.kind == Stmt::Kind::assign) assigned.insert(st.var);
    std::string out;
    for (const std::string& c : f.comment) out += "// " + c + "\n";
    std::string params;
    std::vector<std::string> copies;
    for (std::size_t i = 0; i < f.params.size(); ++i) {
      const Param& p = f.params[i];
      std::string pname = p.name;
      if (s_.params_immutable && assigned.count(p.name)) {
        pname = p.name + "_in";
        copies.push_back(std::string(s_.local_keyword) + " " + p.name + " = " + pname + ";");
      }
      params += i ? ", " : "";
      params += s_.type_after_name ? pname + ": " + type(p.type) : type(p.type) + " " + pname;
    }
    if (!s_.function_keyword.empty())
      out += std::string(s_.function_prefix) + std::string(s_.function_keyword) + " " + f.name + "(" +
             params + ") -> " + type(f.result) + std::string(s_.function_suffix) + " {\n";
    else
      out += std::string(s_.function_prefix) + type(f.result) + " " + f.name + "(" + params + ")" +
             std::string(s_.function_suffix) + " {\n";
    for (const std::string& c : copies) out += "  " + c + "\n";
    for (const Stmt& st : f.body) out += "  " + stmt(st) + "\n";
    out += "}\n";
    return out;
  }

  bool used_helper() const { return used_helper_; }

 private:
  const TargetSyntax& s_;
  std::string helper_;
  bool used_helper_ = false;
};

}  // namespace

std::string render(const Module& module, const TargetSyntax& s) {
  const std::string helper = module.functions.empty() ? "mixforge" : module.functions.front().name;
  Renderer r(s, helper + "_u64");
  std::string body;
  for (std::size_t i = 0; i < module.functions.size(); ++i) body += (i ? "\n" : "") + r.function(module.functions[i]);

  std::string out;
  for (const std::string& c : module.comment) out += "// " + c + "\n";
  const bool u64 = uses_type(module, Type::u64), vec = uses_type(module, Type::u32x4);
  if (vec && s.u32x4.empty())
    throw ExportError(std::string(target_name(s.target)) + " has no 4-lane export");
  std::string prelude;
  for (auto l : s.prelude) prelude += std::string(l) + "\n";
  if (u64) for (auto l : s.prelude_u64) prelude += std::string(l) + "\n";
  if (vec) for (auto l : s.prelude_vector) prelude += std::string(l) + "\n";
  if (r.used_helper()) {
    // Built from two 32-bit halves; compilers fold it to one constant.
    const std::string h = helper + "_u64";
    prelude += std::string(s.u64) + " " + h + "(" + std::string(s.u32) + " hi, " + std::string(s.u32) +
               " lo) {\n  " + std::string(s.u64) + " v = hi;\n  return (v << 32u) | lo;\n}\n";
  }
  if (!prelude.empty()) out += prelude + "\n";
  return out + body;
}

}  // namespace mixforge::shader
