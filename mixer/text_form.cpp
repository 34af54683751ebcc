// Parser and printer of the text form. A small tokenizer, an expression parser with C
// precedence, and a matcher that recognises each statement as one of the nine steps.
#include "mixer/text_form.hpp"

#include <cstdio>
#include <memory>
#include <vector>

namespace mixforge::mixer {

ParseError::ParseError(int line, int column, const std::string& message)
    : std::runtime_error(std::to_string(line) + ":" + std::to_string(column) + ": " + message),
      line_(line),
      column_(column),
      message_(message) {}

namespace {

struct Pos {
  int line = 1, column = 1;
};

enum class Tok { ident, number, op, newline, end };

struct Token {
  Tok type;
  std::string text;  // identifier name, operator spelling, or number spelling
  std::uint64_t value = 0;
  Pos pos;
};

[[noreturn]] void fail(Pos p, const std::string& message) {
  throw ParseError(p.line, p.column, message);
}


bool is_ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '$'; }
bool is_ident_char(char c) { return is_ident_start(c) || std::isdigit(static_cast<unsigned char>(c)); }

// Operators that, ending a line, mean the statement goes on (so the newline is no separator).
bool continues_line(const Token& t) {
  if (t.type != Tok::op) return false;
  return t.text != ")" && t.text != "}" && t.text != ";" && t.text != "{";
}

class Lexer {
 public:
  explicit Lexer(std::string_view s) : s_(s) {}

  std::vector<Token> run() {
    std::vector<Token> out;
    int depth = 0;
    while (true) {
      skip_space_and_comments(out, depth);
      if (i_ >= s_.size()) break;
      const Pos p = pos_;
      const char c = s_[i_];
      if (is_ident_start(c)) {
        std::size_t j = i_;
        while (j < s_.size() && (is_ident_char(s_[j]) || (s_[j] == '.' && j + 1 < s_.size() && is_ident_start(s_[j + 1])))) ++j;
        out.push_back({Tok::ident, std::string(s_.substr(i_, j - i_)), 0, p});
        advance(j - i_);
      } else if (std::isdigit(static_cast<unsigned char>(c))) {
        out.push_back(number(p));
      } else {
        static const char* ops[] = {">>>=", ">>>", "<<=", ">>=", "^=", "*=", "+=", "-=", "&=", "|=",
                                    "<<",   ">>",  "^",   "*",   "+",  "-",  "&",  "|",  "=",  "(",
                                    ")",    "{",   "}",   ",",   ";",  ":",  "~"};
        bool found = false;
        for (const char* op : ops) {
          const std::string_view o(op);
          if (s_.substr(i_, o.size()) == o) {
            out.push_back({Tok::op, std::string(o), 0, p});
            if (o == "(") ++depth;
            if (o == ")") --depth;
            advance(o.size());
            found = true;
            break;
          }
        }
        if (!found) {
          std::string shown(1, c);
          if (!std::isprint(static_cast<unsigned char>(c))) shown = "\\x" + hex_literal(static_cast<unsigned char>(c)).substr(2);
          fail(p, "unexpected character '" + shown + "'");
        }
      }
    }
    out.push_back({Tok::end, "", 0, pos_});
    return out;
  }

 private:
  void advance(std::size_t n) {
    for (std::size_t k = 0; k < n && i_ < s_.size(); ++k, ++i_) {
      if (s_[i_] == '\n') {
        ++pos_.line;
        pos_.column = 1;
      } else {
        ++pos_.column;
      }
    }
  }

  void skip_space_and_comments(std::vector<Token>& out, int depth) {
    while (i_ < s_.size()) {
      const char c = s_[i_];
      if (c == '\n') {
        // A newline separates statements only outside parentheses and after a complete
        // statement; collapse runs of them.
        if (depth <= 0 && !out.empty() && out.back().type != Tok::newline && !continues_line(out.back()))
          out.push_back({Tok::newline, "\\n", 0, pos_});
        advance(1);
      } else if (std::isspace(static_cast<unsigned char>(c))) {
        advance(1);
      } else if (s_.substr(i_, 2) == "//") {
        while (i_ < s_.size() && s_[i_] != '\n') advance(1);
      } else if (s_.substr(i_, 2) == "/*") {
        const Pos start = pos_;
        const std::size_t end = s_.find("*/", i_ + 2);
        if (end == std::string_view::npos) fail(start, "unterminated comment: '/*' has no '*/'");
        advance(end + 2 - i_);
      } else {
        break;
      }
    }
  }

  Token number(Pos p) {
    std::size_t j = i_;
    int base = 10;
    if (s_[j] == '0' && j + 1 < s_.size() && (s_[j + 1] == 'x' || s_[j + 1] == 'X')) {
      base = 16;
      j += 2;
    } else if (s_[j] == '0' && j + 1 < s_.size() && (s_[j + 1] == 'b' || s_[j + 1] == 'B')) {
      base = 2;
      j += 2;
    } else if (s_[j] == '0' && j + 1 < s_.size() && std::isdigit(static_cast<unsigned char>(s_[j + 1]))) {
      base = 8;  // C's octal: 011 is 9
      j += 1;
    }
    const std::size_t digits_start = j;
    std::uint64_t v = 0;
    bool overflow = false;
    while (j < s_.size()) {
      const char c = s_[j];
      int d;
      if (c == '\'' || (c == '_' && base != 10)) { ++j; continue; }  // digit separators
      if (c >= '0' && c <= '9') d = c - '0';
      else if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
      else if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
      else break;
      if (d >= base) {
        if ((base == 10 || base == 8) && (c == 'f' || c == 'F' || c == 'e' || c == 'E')) break;
        if (base == 8)
          fail(p, "digit '" + std::string(1, c) + "' is not valid in an octal number (a leading 0 makes it octal, as in C)");
        fail(p, "digit '" + std::string(1, c) + "' is not valid in a base-" + std::to_string(base) + " number");
      }
      if (v > (~std::uint64_t{0} - d) / base) overflow = true;
      v = v * base + d;
      ++j;
    }
    if (j == digits_start) fail(p, "expected digits after '" + std::string(s_.substr(i_, j - i_)) + "'");
    // C suffixes: u, l, ul, ull, lu, llu (any case).
    std::size_t k = j;
    while (k < s_.size() && (s_[k] == 'u' || s_[k] == 'U' || s_[k] == 'l' || s_[k] == 'L')) ++k;
    const std::string suffix(s_.substr(j, k - j));
    if (!suffix.empty()) {
      std::string low;
      for (char c : suffix) low += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      static const char* ok[] = {"u", "l", "ul", "lu", "ll", "ull", "llu"};
      bool valid = false;
      for (const char* s : ok) valid = valid || low == s;
      if (!valid) fail(p, "invalid integer suffix '" + suffix + "' (use u, ul or ull)");
    }
    if (k < s_.size() && is_ident_char(s_[k]))
      fail(p, "invalid number '" + std::string(s_.substr(i_, k + 1 - i_)) + "'");
    const std::string text(s_.substr(i_, k - i_));
    if (overflow) fail(p, "constant " + text + " does not fit in 64 bits");
    advance(k - i_);
    return {Tok::number, text, v, p};
  }

  std::string_view s_;
  std::size_t i_ = 0;
  Pos pos_;
};

// ---- expressions ------------------------------------------------------------------

struct Expr {
  enum Kind { var, num, bin, call } kind;
  std::string name;  // variable / function name, or the binary operator
  std::uint64_t value = 0;
  Pos pos;
  std::vector<std::unique_ptr<Expr>> args;
};
using ExprPtr = std::unique_ptr<Expr>;

ExprPtr make_bin(std::string op, ExprPtr a, ExprPtr b, Pos p) {
  auto e = std::make_unique<Expr>();
  e->kind = Expr::bin;
  e->name = std::move(op);
  e->pos = p;
  e->args.push_back(std::move(a));
  e->args.push_back(std::move(b));
  return e;
}

int precedence(const std::string& op) {
  if (op == "*") return 5;
  if (op == "+" || op == "-") return 4;
  if (op == "<<" || op == ">>" || op == ">>>") return 3;
  if (op == "&") return 2;
  if (op == "^") return 1;
  if (op == "|") return 0;
  return -1;
}

// A step recognised in the text, with where it came from.
struct RawStep {
  Step step;
  Pos pos;          // the statement
  Pos operand_pos;  // the constant or amount
  // rotations whose validity needs the width: (x << k) | (x >> m) needs k + m == n;
  // rotr(x, k) is rotl by n - k.
  std::uint64_t rotate_partner = 0;
  bool rotate_right = false;
  bool rotate_pair = false;
};

class Parser {
 public:
  explicit Parser(std::vector<Token> toks) : t_(std::move(toks)) {}

  std::vector<RawStep> steps;
  std::optional<int> mask_width;
  Pos mask_pos;
  std::string var;  // the program's variable, once known

  void parse() {
    skip_separators();
    // Optional function wrapper: header tokens up to '{' before any ';'.
    std::size_t brace = find_function_brace();
    bool wrapped = false;
    if (brace != 0) {
      read_header(brace);
      idx_ = brace + 1;
      wrapped = true;
    }
    while (true) {
      skip_separators();
      const Token& t = peek();
      if (t.type == Tok::end) {
        if (wrapped) fail(t.pos, "expected '}' to close the function body");
        break;
      }
      if (wrapped && is_op(t, "}")) {
        ++idx_;
        skip_separators();
        if (peek().type != Tok::end) fail(peek().pos, "unexpected '" + peek().text + "' after the function body");
        break;
      }
      statement();
    }
    if (steps.empty()) fail(peek().pos, "no steps found: expected statements like 'x ^= x >> 16;' or 'x *= 0x7feb352d;'");
  }

 private:
  const Token& peek(std::size_t k = 0) const { return t_[std::min(idx_ + k, t_.size() - 1)]; }
  const Token& next() { return t_[std::min(idx_++, t_.size() - 1)]; }
  static bool is_op(const Token& t, std::string_view s) { return t.type == Tok::op && t.text == s; }

  void skip_separators() {
    while (peek().type == Tok::newline || is_op(peek(), ";")) ++idx_;
  }

  void expect_op(std::string_view s, const std::string& what) {
    const Token& t = peek();
    if (!is_op(t, s)) fail(t.pos, "expected '" + std::string(s) + "' " + what + ", found " + describe(t));
    ++idx_;
  }

  static std::string describe(const Token& t) {
    switch (t.type) {
      case Tok::end: return "end of text";
      case Tok::newline: return "end of line";
      case Tok::number: return "number " + t.text;
      case Tok::ident: return "'" + t.text + "'";
      case Tok::op: return "'" + t.text + "'";
    }
    return "?";
  }

  std::size_t find_function_brace() const {
    for (std::size_t k = idx_; k < t_.size(); ++k) {
      if (t_[k].type == Tok::end || is_op(t_[k], ";") || is_op(t_[k], "=")) return 0;
      if (is_op(t_[k], "{")) return k;
    }
    return 0;
  }

  // "function hash(seed)" / "uint hash(uint x)" / "fn hash(x: u32) -> u32": the parameter
  // names the variable.
  void read_header(std::size_t brace) {
    std::size_t open = 0;
    for (std::size_t k = idx_; k < brace; ++k)
      if (is_op(t_[k], "(")) { open = k; break; }
    if (!open) fail(t_[idx_].pos, "expected a function header like 'uint hash(uint x) {'");
    std::string param;
    for (std::size_t k = open + 1; k < brace && !is_op(t_[k], ")"); ++k) {
      if (is_op(t_[k], ",")) fail(t_[k].pos, "a mixing function takes exactly one parameter");
      if (t_[k].type == Tok::ident && param.empty()) param = t_[k].text;
      if (t_[k].type == Tok::ident && !is_op(t_[k + 1], ":")) param = t_[k].text;
      if (is_op(t_[k], ":")) break;  // "x: u32"
    }
    if (param.empty()) fail(t_[open].pos, "the function needs a parameter (the input)");
    var = param;
  }

  void use_var(const Token& t) {
    if (var.empty()) var = t.text;
    else if (t.text != var)
      fail(t.pos, "unknown variable '" + t.text + "'; the program's variable is '" + var + "'");
  }

  void end_statement() {
    const Token& t = peek();
    if (t.type == Tok::newline || is_op(t, ";")) { ++idx_; return; }
    if (t.type == Tok::end || is_op(t, "}")) return;
    fail(t.pos, "expected ';' or a new line after the statement, found " + describe(t));
  }

  void statement() {
    operators_ = 0;
    const Token& first = peek();
    // return x; / return x >>> 0;
    if (first.type == Tok::ident && first.text == "return") {
      ++idx_;
      ExprPtr e = expression();
      strip_coercions(e);
      if (e->kind != Expr::var) fail(e->pos, "expected 'return " + (var.empty() ? std::string("x") : var) + ";'");
      use_var_expr(*e);
      end_statement();
      return;
    }
    // Declarations: "var result = seed;", "uint32_t x = seed;", "let mut h = x;".
    if (first.type == Tok::ident && peek(1).type == Tok::ident) {
      std::size_t k = idx_;
      while (t_[k].type == Tok::ident) ++k;
      if (is_op(t_[k], "=")) {
        const Token& name = t_[k - 1];
        idx_ = k + 1;
        ExprPtr init = expression();
        if (init->kind != Expr::var)
          fail(init->pos, "expected the input variable as the initial value, e.g. 'var " + name.text + " = seed;'");
        var = name.text;
        end_statement();
        return;
      }
    }
    // An assignment, possibly wrapped in parentheses: "(result ^= (result >> 16));".
    int parens = 0;
    while (is_op(peek(), "(")) { ++idx_; ++parens; }
    const Token& lhs = peek();
    if (lhs.type == Tok::ident && is_op(peek(1), "(") && parens == 0) {
      // bare "rotl(x, 5);"
      ExprPtr e = expression();
      add_step(*e, lhs.pos);
      end_statement();
      return;
    }
    if (lhs.type != Tok::ident)
      fail(lhs.pos, "expected a statement such as 'x ^= x >> 16;', found " + describe(lhs));
    ++idx_;
    const Token& op = peek();
    static const char* assigns[] = {"=", "^=", "*=", "+=", "-=", "&=", "|=", "<<=", ">>=", ">>>="};
    bool is_assign = false;
    for (const char* a : assigns) is_assign = is_assign || is_op(op, a);
    if (!is_assign) fail(op.pos, "expected '=' or a compound assignment (^=, *=, +=, -=) after '" + lhs.text + "', found " + describe(op));
    use_var(lhs);
    ++idx_;
    ExprPtr rhs = expression();
    for (int k = 0; k < parens; ++k) expect_op(")", "to close the statement's '('");
    if (op.text != "=") {
      auto v = std::make_unique<Expr>();
      v->kind = Expr::var;
      v->name = lhs.text;
      v->pos = lhs.pos;
      std::string bop = op.text.substr(0, op.text.size() - 1);
      rhs = make_bin(bop, std::move(v), std::move(rhs), op.pos);
    }
    add_step(*rhs, lhs.pos);
    end_statement();
  }

  // ---- expressions ----
  ExprPtr expression(int min_prec = 0) {
    ExprPtr left = unary();
    while (true) {
      const Token& t = peek();
      if (t.type != Tok::op) break;
      const int p = precedence(t.text);
      if (p < min_prec || p < 0) break;
      if (++operators_ > kMaxOperators)
        fail(t.pos, "more than " + std::to_string(kMaxOperators) + " operators in one statement");
      ++idx_;
      ExprPtr right = expression(p + 1);
      left = make_bin(t.text == ">>>" ? ">>" : t.text, std::move(left), std::move(right), t.pos);
    }
    return left;
  }

  ExprPtr unary() {
    const Token& t = peek();
    if (is_op(t, "(")) {
      const Nesting nest(*this, t);
      ++idx_;
      // C casts: "(uint32_t)x"
      if (peek().type == Tok::ident && is_op(peek(1), ")") && is_type_name(peek().text)) {
        idx_ += 2;
        return unary();
      }
      ExprPtr e = expression();
      expect_op(")", "to close '('");
      return e;
    }
    if (t.type == Tok::number) {
      ++idx_;
      auto e = std::make_unique<Expr>();
      e->kind = Expr::num;
      e->value = t.value;
      e->name = t.text;
      e->pos = t.pos;
      return e;
    }
    if (t.type == Tok::ident) {
      ++idx_;
      auto e = std::make_unique<Expr>();
      e->pos = t.pos;
      e->name = t.text;
      if (is_op(peek(), "(")) {
        const Nesting nest(*this, peek());
        e->kind = Expr::call;
        ++idx_;
        if (!is_op(peek(), ")")) {
          while (true) {
            e->args.push_back(expression());
            if (is_op(peek(), ",")) { ++idx_; continue; }
            break;
          }
        }
        expect_op(")", "to close the call of " + t.text);
        return e;
      }
      e->kind = Expr::var;
      return e;
    }
    if (t.type == Tok::end || t.type == Tok::newline) fail(t.pos, "expected an expression, found " + describe(t));
    fail(t.pos, "expected a number, the variable or '(', found " + describe(t));
  }

  static bool is_type_name(const std::string& s) {
    return s == "uint" || s == "uint32_t" || s == "uint64_t" || s == "unsigned" || s == "u32" ||
           s == "u64" || s == "ulong" || s == "std::uint32_t" || s == "std::uint64_t";
  }

  // ---- matching a right-hand side to a step ----
  void use_var_expr(const Expr& e) {
    Token t{Tok::ident, e.name, 0, e.pos};
    use_var(t);
  }
  bool is_var(const Expr& e) {
    if (e.kind != Expr::var) return false;
    use_var_expr(e);
    return true;
  }
  static bool is_num(const Expr& e) { return e.kind == Expr::num; }
  // x << k / x >> k with a constant k
  bool is_shift(const Expr& e, const char* dir) {
    return e.kind == Expr::bin && e.name == dir && is_var(*e.args[0]) && is_num(*e.args[1]);
  }

  // JavaScript idioms that only convert: "e >>> 0", "e | 0".
  void strip_coercions(ExprPtr& e) {
    while (e->kind == Expr::bin && (e->name == ">>" || e->name == "|") && is_num(*e->args[1]) &&
           e->args[1]->value == 0) {
      ExprPtr inner = std::move(e->args[0]);
      e = std::move(inner);
    }
  }

  void record_mask(const Expr& m) {
    const std::uint64_t v = m.value;
    int w = 0;
    while (w < 64 && ((v >> w) & 1)) ++w;
    if (w == 0 || (w < 64 && (v >> w) != 0))
      fail(m.pos, "mask " + hex_literal(v) + " is not of the form 2^n - 1 (e.g. 127 for 7 bits)");
    if (mask_width && *mask_width != w)
      fail(m.pos, "mask " + hex_literal(v) + " gives width " + std::to_string(w) + " but an earlier mask gave " + std::to_string(*mask_width));
    if (!mask_width) mask_pos = m.pos;
    mask_width = w;
  }

  void add_step(const Expr& rhs_in, Pos stmt) {
    const Expr* e = &rhs_in;
    // Peel "(... ) & MASK": the mask gives the width.
    while (e->kind == Expr::bin && e->name == "&") {
      if (is_num(*e->args[1])) { record_mask(*e->args[1]); e = e->args[0].get(); }
      else if (is_num(*e->args[0])) { record_mask(*e->args[0]); e = e->args[1].get(); }
      else fail(e->pos, "'&' is only allowed with a width mask such as 127");
    }
    // JS coercions
    while (e->kind == Expr::bin && (e->name == ">>" || e->name == "|") && is_num(*e->args[1]) && e->args[1]->value == 0)
      e = e->args[0].get();
    // "x = x & 127" / "x &= 127": a mask alone, no step.
    if (e->kind == Expr::var && e != &rhs_in) { is_var(*e); return; }
    RawStep r;
    r.pos = stmt;
    if (e->kind == Expr::call) {
      const std::string& f = e->name;
      if (f == "Math.imul" || f == "imul") {
        if (e->args.size() != 2) fail(e->pos, f + " takes two arguments");
        const Expr *a = e->args[0].get(), *b = e->args[1].get();
        if (is_num(*a)) std::swap(a, b);
        if (!is_var(*a) || !is_num(*b)) fail(e->pos, "expected " + f + "(x, CONSTANT)");
        push(r, StepKind::mul_const, b->value, b->pos);
        return;
      }
      if (f == "rotl" || f == "rotr" || f == "rotl32" || f == "rotr32" || f == "rotl64" || f == "rotr64" ||
          f == "std::rotl" || f == "std::rotr" || f == "rol" || f == "ror") {
        if (e->args.size() != 2 || !is_var(*e->args[0]) || !is_num(*e->args[1]))
          fail(e->pos, "expected " + f + "(" + (var.empty() ? std::string("x") : var) + ", AMOUNT) with a constant amount");
        r.rotate_right = f.find("rotr") != std::string::npos || f == "ror";
        push(r, StepKind::rotate, e->args[1]->value, e->args[1]->pos);
        return;
      }
      fail(e->pos, "unknown function '" + f + "' (known: rotl, rotr, Math.imul)");
    }
    if (e->kind != Expr::bin) fail(e->pos, "expected a mixing step such as 'x ^= x >> 16', 'x *= C' or 'x += x << 3'");
    const std::string& op = e->name;
    const Expr& a = *e->args[0];
    const Expr& b = *e->args[1];
    auto var_and = [&](const Expr*& other) -> bool {
      if (a.kind == Expr::var) { is_var(a); other = &b; return true; }
      if (b.kind == Expr::var && op != "-") { is_var(b); other = &a; return true; }
      return false;
    };
    if (op == "|" || ((op == "^" || op == "+") && is_shift_pair(a, b))) {
      if (is_shift_pair(a, b)) {
        const Expr& l = a.name == "<<" ? a : b;
        const Expr& rr = a.name == "<<" ? b : a;
        r.rotate_pair = true;
        r.rotate_partner = rr.args[1]->value;
        push(r, StepKind::rotate, l.args[1]->value, l.args[1]->pos);
        return;
      }
      fail(e->pos, "'|' is only allowed in a rotation '(x << k) | (x >> (n - k))'");
    }
    const Expr* other = nullptr;
    if (!var_and(other)) {
      if (op == "-" && b.kind == Expr::var)
        fail(e->pos, "'C - x' is not a step (x -= C subtracts a constant)");
      fail(e->pos, "expected the variable on one side of '" + op + "'");
    }
    const Expr& o = *other;
    if (op == "^") {
      if (is_num(o)) return push(r, StepKind::xor_const, o.value, o.pos);
      if (is_shift(o, ">>")) return push(r, StepKind::xorshift_right, o.args[1]->value, o.args[1]->pos);
      if (is_shift(o, "<<")) return push(r, StepKind::xorshift_left, o.args[1]->value, o.args[1]->pos);
      fail(o.pos, "expected a constant, 'x >> k' or 'x << k' after '^'");
    }
    if (op == "*") {
      if (is_num(o)) return push(r, StepKind::mul_const, o.value, o.pos);
      fail(o.pos, "expected a constant multiplier");
    }
    if (op == "+" || op == "-") {
      const bool add = op == "+";
      if (is_num(o)) return push(r, add ? StepKind::add_const : StepKind::sub_const, o.value, o.pos);
      if (is_shift(o, "<<")) return push(r, add ? StepKind::add_shift : StepKind::sub_shift, o.args[1]->value, o.args[1]->pos);
      if (is_shift(o, ">>")) fail(o.pos, std::string("'x ") + op + "= x >> k' is not reversible; use 'x ^= x >> k'");
      fail(o.pos, "expected a constant or 'x << k' after '" + op + "'");
    }
    if (op == "<<" || op == ">>")
      fail(e->pos, "a plain shift loses bits and is not reversible; use 'x ^= x " + op + " k'");
    fail(e->pos, "operator '" + op + "' does not make a mixing step");
  }

  bool is_shift_pair(const Expr& a, const Expr& b) {
    if (a.kind != Expr::bin || b.kind != Expr::bin) return false;
    const bool lr = a.name == "<<" && b.name == ">>";
    const bool rl = a.name == ">>" && b.name == "<<";
    return (lr || rl) && is_shift(a, a.name.c_str()) && is_shift(b, b.name.c_str());
  }

  void push(RawStep r, StepKind k, std::uint64_t v, Pos operand_pos) {
    r.step = {k, v};
    r.operand_pos = operand_pos;
    steps.push_back(r);
  }

  // The parser and the tree recurse once per level: without limits a long enough text
  // overflows the stack (a request body may hold a megabyte). A statement is one step, so
  // real programs stay far below both.
  static constexpr int kMaxNesting = 256;
  static constexpr int kMaxOperators = 256;
  struct Nesting {
    Nesting(Parser& p, const Token& open) : parser(p) {
      if (++parser.nesting_ > kMaxNesting)
        fail(open.pos, "parentheses nested more than " + std::to_string(kMaxNesting) + " deep");
    }
    ~Nesting() { --parser.nesting_; }
    Nesting(const Nesting&) = delete;
    Nesting& operator=(const Nesting&) = delete;
    Parser& parser;
  };

  std::vector<Token> t_;
  std::size_t idx_ = 0;
  int nesting_ = 0;
  int operators_ = 0;
};

}  // namespace

ParsedText parse_text(std::string_view text, const ParseOptions& options) {
  // A UTF-8 byte order mark (editors on Windows write one) is no part of the program.
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  Parser parser(Lexer(text).run());
  parser.parse();
  int width = 32;
  if (options.width) {
    width = *options.width;
    if (!valid_width(width)) throw ParseError(1, 1, "width " + std::to_string(width) + " is not supported (widths are 1..64)");
    if (parser.mask_width && *parser.mask_width != width)
      fail(parser.mask_pos, "mask gives width " + std::to_string(*parser.mask_width) + " but width " +
                                std::to_string(width) + " was requested");
  } else if (parser.mask_width) {
    width = *parser.mask_width;
  }
  std::vector<Step> steps;
  for (std::size_t i = 0; i < parser.steps.size(); ++i) {
    RawStep& r = parser.steps[i];
    if (static_cast<int>(i) >= options.max_steps)
      fail(r.pos, "too many steps: " + std::to_string(parser.steps.size()) + " (the limit is " +
                      std::to_string(options.max_steps) + ")");
    if (r.step.kind == StepKind::rotate) {
      const auto n = static_cast<std::uint64_t>(width);
      if (r.rotate_pair && r.step.operand + r.rotate_partner != n)
        fail(r.operand_pos, "rotation shifts " + std::to_string(r.step.operand) + " and " +
                                std::to_string(r.rotate_partner) + " must add up to the width " +
                                std::to_string(width));
      if (r.rotate_right && r.step.operand >= 1 && r.step.operand < n) r.step.operand = n - r.step.operand;
    }
    const std::string e = step_error(r.step, width);
    if (!e.empty()) fail(r.operand_pos, e);
    steps.push_back(r.step);
  }
  ParsedText out{Program(width, std::move(steps)), parser.mask_width, parser.var.empty() ? "x" : parser.var};
  return out;
}

std::string format_step(const Step& s, int width, std::string_view v) {
  const std::string x(v);
  const std::string k = std::to_string(s.operand);
  switch (s.kind) {
    case StepKind::xor_const: return x + " ^= " + hex_literal(s.operand) + ";";
    case StepKind::mul_const: return x + " *= " + hex_literal(s.operand) + ";";
    case StepKind::add_const: return x + " += " + hex_literal(s.operand) + ";";
    case StepKind::sub_const: return x + " -= " + hex_literal(s.operand) + ";";
    case StepKind::xorshift_right: return x + " ^= " + x + " >> " + k + ";";
    case StepKind::xorshift_left: return x + " ^= " + x + " << " + k + ";";
    case StepKind::add_shift: return x + " += " + x + " << " + k + ";";
    case StepKind::sub_shift: return x + " -= " + x + " << " + k + ";";
    case StepKind::rotate:
      return x + " = (" + x + " << " + k + ") | (" + x + " >> " + std::to_string(width - static_cast<int>(s.operand)) + ");";
  }
  return {};
}

std::string format_program(const Program& p, std::string_view v) {
  std::string out;
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (i) out += '\n';
    out += format_step(p.steps()[i], p.width(), v);
  }
  return out;
}

std::string format_short(const Program& p) {
  std::string out;
  for (std::size_t i = 0; i < p.size(); ++i) {
    const Step& s = p.steps()[i];
    if (i) out += ", ";
    out += kind_short_name(s.kind);
    out += ' ';
    out += takes_shift(s.kind) ? std::to_string(s.operand) : hex_literal(s.operand);
  }
  return out;
}

std::string hex_literal(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace mixforge::mixer
