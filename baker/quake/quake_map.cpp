#include "baker/quake/quake_map.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <numbers>
#include <sstream>

namespace mixforge::quake {

double dot(Vec3 a, Vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
Vec3 cross(Vec3 a, Vec3 b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
double length(Vec3 a) { return std::sqrt(dot(a, a)); }
Vec3 normalize(Vec3 a) {
  const double l = length(a);
  return l > 0 ? a * (1.0 / l) : Vec3{};
}

MapError::MapError(const std::string& file, Location where, const std::string& message)
    : std::runtime_error(file + ":" + std::to_string(where.line) + ":" +
                         std::to_string(where.column) + ": " + message),
      file_(file),
      where_(where),
      message_(message) {}

Vec3 FaceDef::normal() const {
  return normalize(cross(points[0] - points[1], points[2] - points[1]));
}

double FaceDef::distance() const { return dot(normal(), points[1]); }

TextureProjection FaceDef::projection() const {
  const double su = u_scale != 0 ? u_scale : 1;
  const double sv = v_scale != 0 ? v_scale : 1;
  if (format == FaceFormat::valve220) {
    return {u_axis * (1 / su), u_offset, v_axis * (1 / sv), v_offset};
  }
  // Quake's base-axis table (qbsp TextureAxisFromPlane): the first axis with the largest
  // positive dot product with the normal wins.
  static constexpr double base[18][3] = {
      {0, 0, 1},  {1, 0, 0}, {0, -1, 0},  // floor
      {0, 0, -1}, {1, 0, 0}, {0, -1, 0},  // ceiling
      {1, 0, 0},  {0, 1, 0}, {0, 0, -1},  // west wall
      {-1, 0, 0}, {0, 1, 0}, {0, 0, -1},  // east wall
      {0, 1, 0},  {1, 0, 0}, {0, 0, -1},  // south wall
      {0, -1, 0}, {1, 0, 0}, {0, 0, -1},  // north wall
  };
  const Vec3 n = normal();
  double best = 0;
  int best_axis = 0;
  for (int i = 0; i < 6; ++i) {
    const double d = n.x * base[i * 3][0] + n.y * base[i * 3][1] + n.z * base[i * 3][2];
    if (d > best) {
      best = d;
      best_axis = i;
    }
  }
  std::array<std::array<double, 3>, 2> vecs{};
  for (int k = 0; k < 3; ++k) {
    vecs[0][k] = base[best_axis * 3 + 1][k];
    vecs[1][k] = base[best_axis * 3 + 2][k];
  }
  const double angle = rotation / 180.0 * std::numbers::pi;
  const double sinv = std::sin(angle), cosv = std::cos(angle);
  const int s_index = vecs[0][0] != 0 ? 0 : vecs[0][1] != 0 ? 1 : 2;
  const int t_index = vecs[1][0] != 0 ? 0 : vecs[1][1] != 0 ? 1 : 2;
  for (auto& v : vecs) {
    const double ns = cosv * v[s_index] - sinv * v[t_index];
    const double nt = sinv * v[s_index] + cosv * v[t_index];
    v[s_index] = ns;
    v[t_index] = nt;
  }
  return {Vec3{vecs[0][0], vecs[0][1], vecs[0][2]} * (1 / su), u_offset,
          Vec3{vecs[1][0], vecs[1][1], vecs[1][2]} * (1 / sv), v_offset};
}

const KeyValue* Entity::find(std::string_view key) const {
  for (auto it = pairs.rbegin(); it != pairs.rend(); ++it) {
    if (it->key == key) return &*it;
  }
  return nullptr;
}

std::string Entity::value(std::string_view key, std::string_view fallback) const {
  const KeyValue* kv = find(key);
  return kv ? kv->value : std::string(fallback);
}

const Entity* QuakeMap::worldspawn() const {
  if (!entities.empty() && entities.front().classname() == "worldspawn") return &entities.front();
  return nullptr;
}

std::size_t QuakeMap::brush_count() const {
  std::size_t n = 0;
  for (const auto& e : entities) n += e.brushes.size();
  return n;
}

std::size_t QuakeMap::face_count() const {
  std::size_t n = 0;
  for (const auto& e : entities)
    for (const auto& b : e.brushes) n += b.faces.size();
  return n;
}

namespace {

// Where the first invalid UTF-8 sequence starts, or npos. Rejects overlong forms, surrogates
// and code points above U+10FFFF (RFC 3629).
std::size_t first_invalid_utf8(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    int n = 0;
    unsigned lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) {
      n = 1;
    } else if (c >= 0xE0 && c <= 0xEF) {
      n = 2;
      if (c == 0xE0) lo = 0xA0;
      if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      n = 3;
      if (c == 0xF0) lo = 0x90;
      if (c == 0xF4) hi = 0x8F;
    } else {
      return i;
    }
    for (int k = 1; k <= n; ++k) {
      if (i + k >= s.size()) return i;
      const auto d = static_cast<unsigned char>(s[i + k]);
      const unsigned l = k == 1 ? lo : 0x80, h = k == 1 ? hi : 0xBF;
      if (d < l || d > h) return i;
    }
    i += n + 1;
  }
  return std::string_view::npos;
}

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}
bool is_delimiter(char c) {
  return is_space(c) || c == '(' || c == ')' || c == '[' || c == ']' || c == '{' || c == '}' ||
         c == '"';
}

class Parser {
 public:
  Parser(std::string_view text, const std::string& file) : text_(text), file_(file) {}

  QuakeMap parse() {
    check_encoding();
    if (text_.starts_with("\xEF\xBB\xBF")) pos_ = 3;  // a UTF-8 byte order mark takes no column
    QuakeMap map;
    map.file = file_;
    while (true) {
      skip();
      if (at_end()) break;
      map.entities.push_back(entity());
    }
    return map;
  }

 private:
  [[noreturn]] void fail(Location at, const std::string& message) const {
    throw MapError(file_, at, message);
  }
  [[noreturn]] void fail(const std::string& message) const { fail(here(), message); }

  Location here() const { return {line_, column_}; }
  bool at_end() const { return pos_ >= text_.size(); }
  char peek() const { return text_[pos_]; }

  void advance() {
    const char c = text_[pos_++];
    if (c == '\n') {
      ++line_;
      column_ = 1;
    } else if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) {
      ++column_;  // continuation bytes belong to the previous code point's column
    }
  }

  void check_encoding() const {
    const std::size_t bad = first_invalid_utf8(text_);
    std::size_t end = bad == std::string_view::npos ? text_.size() : bad;
    // Control characters other than whitespace are as wrong as bad UTF-8 here.
    std::size_t control = std::string_view::npos;
    for (std::size_t i = 0; i < end; ++i) {
      const auto c = static_cast<unsigned char>(text_[i]);
      if ((c < 0x20 && !is_space(static_cast<char>(c))) || c == 0x7F) {
        control = i;
        break;
      }
    }
    const std::size_t first = std::min(bad, control);
    if (first == std::string_view::npos) return;
    Location at{1, 1};
    for (std::size_t i = 0; i < first; ++i) {
      if (text_[i] == '\n') {
        ++at.line;
        at.column = 1;
      } else if ((static_cast<unsigned char>(text_[i]) & 0xC0) != 0x80) {
        ++at.column;
      }
    }
    char hex[8];
    std::snprintf(hex, sizeof hex, "%02X", static_cast<unsigned char>(text_[first]));
    if (first == bad) fail(at, std::string("invalid UTF-8 (byte 0x") + hex + ")");
    fail(at, std::string("unexpected control character U+00") + hex);
  }

  // Whitespace and // comments.
  void skip() {
    while (!at_end()) {
      const char c = peek();
      if (is_space(c)) {
        advance();
      } else if (c == '/' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '/') {
        while (!at_end() && peek() != '\n') advance();
      } else {
        return;
      }
    }
  }

  // The raw token at the cursor (up to a delimiter), for messages; never empty.
  std::string describe_next() const {
    if (at_end()) return "end of file";
    std::size_t end = pos_;
    if (is_delimiter(text_[end])) {
      return std::string("'") + text_[end] + "'";
    }
    while (end < text_.size() && !is_delimiter(text_[end]) && end - pos_ < 40) ++end;
    // Never cut a character in two: messages end up in JSON, which must be valid UTF-8.
    while (end > pos_ + 1 && end < text_.size() &&
           (static_cast<unsigned char>(text_[end]) & 0xC0) == 0x80)
      --end;
    return "'" + std::string(text_.substr(pos_, end - pos_)) + "'";
  }

  void expect(char c, const char* what) {
    skip();
    if (at_end() || peek() != c) {
      fail(std::string("expected '") + c + "' " + what + ", found " + describe_next());
    }
    advance();
  }

  double number(const char* what, double limit = 1e9) {
    skip();
    const Location at = here();
    last_number_at_ = at;
    if (at_end()) fail("expected " + std::string(what) + ", found end of file");
    const std::size_t start = pos_;
    while (!at_end() && !is_delimiter(peek())) advance();
    std::string_view token = text_.substr(start, pos_ - start);
    if (token.empty()) {
      fail(at, "expected " + std::string(what) + ", found " + describe_next());
    }
    std::string_view digits = token;
    if (digits.front() == '+') digits.remove_prefix(1);  // atof accepts it, from_chars does not
    double value = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (ec == std::errc::result_out_of_range) {
      fail(at, std::string(what) + " '" + std::string(token) + "' is out of range");
    }
    if (ec != std::errc() || end != digits.data() + digits.size()) {
      fail(at, "expected " + std::string(what) + ", found '" + std::string(token) + "'");
    }
    if (!std::isfinite(value)) {
      fail(at, std::string(what) + " '" + std::string(token) + "' is not a finite number");
    }
    if (std::fabs(value) > limit) {
      std::ostringstream m;
      m << what << " '" << token << "' is out of range (|value| <= " << limit << ")";
      fail(at, m.str());
    }
    return value;
  }

  // A quoted string on one line (Quake has no escapes).
  std::string quoted(const char* what) {
    skip();
    const Location at = here();
    if (at_end() || peek() != '"')
      fail("expected " + std::string(what) + ", found " + describe_next());
    advance();
    const std::size_t start = pos_;
    while (!at_end() && peek() != '"' && peek() != '\n') advance();
    if (at_end() || peek() != '"') fail(at, std::string("unterminated string (") + what + ")");
    std::string out(text_.substr(start, pos_ - start));
    advance();
    return out;
  }

  Entity entity() {
    Entity e;
    e.where = here();
    expect('{', "to open an entity");
    while (true) {
      skip();
      if (at_end()) {
        fail("unexpected end of file: the entity opened at " + std::to_string(e.where.line) + ":" +
             std::to_string(e.where.column) + " is not closed with '}'");
      }
      const char c = peek();
      if (c == '}') {
        advance();
        return e;
      }
      if (c == '"') {
        KeyValue kv;
        kv.key_at = here();
        kv.key = quoted("a key");
        skip();
        kv.value_at = here();
        kv.value = quoted("a value");
        e.pairs.push_back(std::move(kv));
        continue;
      }
      if (c == '{') {
        e.brushes.push_back(brush());
        continue;
      }
      fail("expected a \"key\" \"value\" pair, a brush '{' or '}' to close the entity, found " +
           describe_next());
    }
  }

  BrushDef brush() {
    BrushDef b;
    b.where = here();
    advance();  // '{'
    while (true) {
      skip();
      if (at_end()) {
        fail("unexpected end of file: the brush opened at " + std::to_string(b.where.line) + ":" +
             std::to_string(b.where.column) + " is not closed with '}'");
      }
      const char c = peek();
      if (c == '}') {
        if (b.faces.empty()) fail(b.where, "empty brush (no faces)");
        advance();
        return b;
      }
      if (c == '(') {
        b.faces.push_back(face());
        continue;
      }
      const std::string next = describe_next();
      for (const char* q3 : {"'patchDef2'", "'patchDef3'", "'brushDef'", "'brushDef3'"}) {
        if (next == q3) {
          fail(next +
               " blocks (Quake 3 / Doom 3 patches and brushes) are not supported; "
               "only Quake 1 brushes are");
        }
      }
      fail("expected a face '(' or '}' to close the brush, found " + next);
    }
  }

  Vec3 point() {
    expect('(', "to start a plane point");
    Vec3 p;
    p.x = number("a coordinate", kMaxCoordinate);
    p.y = number("a coordinate", kMaxCoordinate);
    p.z = number("a coordinate", kMaxCoordinate);
    expect(')', "to end a plane point");
    return p;
  }

  FaceDef face() {
    FaceDef f;
    f.where = here();
    for (auto& p : f.points) p = point();
    skip();
    const Location tex_at = here();
    if (at_end()) fail("expected a texture name, found end of file");
    if (peek() == '"') {
      f.texture = quoted("a texture name");
    } else {
      const std::size_t start = pos_;
      while (!at_end() && !is_space(peek())) advance();
      f.texture = std::string(text_.substr(start, pos_ - start));
    }
    if (f.texture.empty() || f.texture == "(" || f.texture == ")" || f.texture == "[" ||
        f.texture == "]" || f.texture == "}") {
      fail(tex_at, "expected a texture name, found '" + f.texture + "'");
    }
    skip();
    if (!at_end() && peek() == '[') {
      f.format = FaceFormat::valve220;
      for (int axis = 0; axis < 2; ++axis) {
        skip();
        const Location axis_at = here();
        expect('[', "to open a Valve 220 texture axis");
        Vec3 v;
        v.x = number("a texture axis component");
        v.y = number("a texture axis component");
        v.z = number("a texture axis component");
        (axis == 0 ? f.u_offset : f.v_offset) = number("a texture offset");
        expect(']', "to close a Valve 220 texture axis");
        if (length(v) == 0) fail(axis_at, "texture axis is the zero vector");
        (axis == 0 ? f.u_axis : f.v_axis) = v;
      }
    } else {
      f.u_offset = number("a texture x offset");
      f.v_offset = number("a texture y offset");
    }
    f.rotation = number("a texture rotation");
    // qbsp reads a zero scale as 1; a tiny one would blow the texture axes up to infinity.
    const auto scale = [this](const char* what, const char* name) {
      const double v = number(what);
      if (v != 0 && std::fabs(v) < 1e-6) {
        std::ostringstream m;
        m << name << " '" << token_before(pos_) << "' is too small (|scale| >= 1e-6, or 0 for 1)";
        fail(last_number_at_, m.str());
      }
      return v;
    };
    f.u_scale = scale("a texture x scale", "texture x scale");
    f.v_scale = scale("a texture y scale", "texture y scale");
    // Optional Quake 2 / Hexen 2 surface fields: integers on the same line.
    for (int extra = 0; extra < 3; ++extra) {
      std::size_t p = pos_;
      while (p < text_.size() && (text_[p] == ' ' || text_[p] == '\t' || text_[p] == '\r')) ++p;
      if (p >= text_.size()) break;
      const char c = text_[p];
      if (!(c == '-' || c == '+' || (c >= '0' && c <= '9'))) break;
      number("a surface flag");
    }
    // Three collinear (or coincident) points define no plane.
    const Vec3 a = f.points[0] - f.points[1], b = f.points[2] - f.points[1];
    const double n = length(cross(a, b));
    if (!(n > 1e-9 * length(a) * length(b)) || n == 0) {
      fail(f.where, "degenerate face: its three points are collinear, they define no plane");
    }
    return f;
  }

  // The token that ends at `end` (the one number() just read).
  std::string_view token_before(std::size_t end) const {
    std::size_t start = end;
    while (start > 0 && !is_delimiter(text_[start - 1])) --start;
    return text_.substr(start, end - start);
  }

  std::string_view text_;
  const std::string& file_;
  Location last_number_at_;
  std::size_t pos_ = 0;
  int line_ = 1, column_ = 1;
};

}  // namespace

QuakeMap parse_quake_map(std::string_view text, std::string file) {
  return Parser(text, file).parse();
}

QuakeMap read_quake_map(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path.string() + ": cannot open the map file");
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) throw std::runtime_error(path.string() + ": cannot read the map file");
  return parse_quake_map(buffer.str(), path.filename().string());
}

}  // namespace mixforge::quake
