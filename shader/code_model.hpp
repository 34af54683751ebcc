#pragma once
// The target-neutral code model every exporter renders: a few functions made of
// typed expressions and statements. Programs are lowered into it once (program_lowering,
// vec4_packing, ranged); each target only supplies a syntax table (target_syntax.hpp).
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace mixforge::shader {

enum class Type : std::uint8_t { u32, u64, u32x4 };
enum class BinOp : std::uint8_t { bit_xor, bit_and, bit_or, add, sub, mul, shl, shr, mod };
// How a constant is written: step constants follow the user's choice, masks are hex,
// shift amounts decimal.
enum class Radix : std::uint8_t { hex, decimal };

struct Expr {
  enum class Kind : std::uint8_t {
    variable,   // name
    constant,   // value[0] (scalars) or value[0..3] (u32x4, one per lane)
    binary,     // op, args[0] op args[1]
    call,       // name(args...)
    construct,  // a u32x4 from four u32 expressions (args[0..3])
    component,  // lane `lane` of the vector variable `name` (only after scalarising)
  };
  Kind kind = Kind::constant;
  Type type = Type::u32;
  std::string name;
  std::array<std::uint64_t, 4> value{};
  Radix radix = Radix::hex;
  BinOp op = BinOp::bit_xor;
  int lane = 0;
  std::vector<Expr> args;

  static Expr var(std::string name, Type type);
  static Expr constant(std::uint64_t v, Type type, Radix radix);
  static Expr lanes(std::array<std::uint64_t, 4> v, Radix radix);  // a u32x4 constant
  static Expr binary(BinOp op, Expr lhs, Expr rhs);                // type of lhs
  static Expr call(std::string name, Type type, std::vector<Expr> args);
  static Expr construct(std::array<Expr, 4> lanes);
  static Expr component(std::string vector, int lane);

  friend bool operator==(const Expr&, const Expr&) = default;
};

struct Stmt {
  enum class Kind : std::uint8_t { declare, assign, ret };
  Kind kind = Kind::assign;
  std::string var;  // declare / assign target
  Type type = Type::u32;
  Expr value;
  int lane = -1;    // >= 0: assigns one lane of a vector variable (after scalarising)
};

struct Param {
  std::string name;
  Type type = Type::u32;
};

struct Function {
  std::string name;
  Type result = Type::u32;
  std::vector<Param> params;
  std::vector<Stmt> body;
  std::vector<std::string> comment;  // lines placed above the function
};

// What a snippet holds: a header comment and its functions in dependency order.
struct Module {
  std::vector<std::string> comment;
  std::vector<Function> functions;
};

bool uses_type(const Module& m, Type t);
bool is_vector(Type t);
int bits_of(Type t);  // bits per lane: 32 or 64

// Rewrites vector statements lane by lane (for targets whose vector types have no
// arithmetic operators, e.g. CUDA's uint4) and drops no-op lanes (x ^ 0, x & ~0).
Function scalarise(const Function& f);

}  // namespace mixforge::shader
