#include "server/http/query.hpp"

#include <charconv>
#include <cmath>
#include <set>

#include <nlohmann/json.hpp>

#include "app/request_error.hpp"
#include "server/http/problem.hpp"

namespace mixforge::server {

HttpError query_parameter_error(const app::RequestError& e) {
  return HttpError(400, "invalid-query-parameter", "query parameter " + e.field() + ": " + e.what())
      .with_field("?" + e.field());
}

namespace {
// The value as a JSON string literal: control characters escaped (a NUL cut the message
// short: the problem's detail travels as an exception's what()).
std::string json_quoted(const std::string& v) {
  return nlohmann::json(v).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

HttpError bad(const std::string& name, const std::string& msg) {
  return HttpError(400, "invalid-query-parameter", "query parameter " + name + ": " + msg).with_field("?" + name);
}
int hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}
}  // namespace

std::optional<std::string> percent_decode(std::string_view s, bool form) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '%') {
      if (i + 2 >= s.size()) return std::nullopt;
      const int h = hexval(s[i + 1]), l = hexval(s[i + 2]);
      if (h < 0 || l < 0) return std::nullopt;
      out += static_cast<char>(h * 16 + l);
      i += 2;
    } else if (form && c == '+') {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

std::optional<std::vector<std::pair<std::string, std::string>>> parse_query(std::string_view q) {
  std::vector<std::pair<std::string, std::string>> out;
  std::size_t i = 0;
  while (i <= q.size()) {
    std::size_t j = q.find('&', i);
    if (j == std::string_view::npos) j = q.size();
    std::string_view part = q.substr(i, j - i);
    if (!part.empty()) {
      const std::size_t eq = part.find('=');
      auto k = percent_decode(part.substr(0, eq), true);
      auto v = percent_decode(eq == std::string_view::npos ? std::string_view() : part.substr(eq + 1), true);
      if (!k || !v) return std::nullopt;
      out.emplace_back(std::move(*k), std::move(*v));
    }
    i = j + 1;
  }
  return out;
}

QueryReader::QueryReader(const Request& request, std::initializer_list<const char*> allowed) : request_(request) {
  std::set<std::string> ok(allowed.begin(), allowed.end()), seen;
  for (const auto& [k, v] : request.query) {
    if (!ok.count(k)) {
      std::string list;
      for (const auto& a : ok) list += (list.empty() ? "" : ", ") + a;
      throw bad(k,
                ok.empty() ? "this resource takes no query parameters" : "unknown parameter (allowed: " + list + ")");
    }
    if (!seen.insert(k).second) throw bad(k, "given more than once");
  }
}

std::optional<std::string> QueryReader::string(const std::string& name) const {
  for (const auto& [k, v] : request_.query)
    if (k == name) return v;
  return std::nullopt;
}

std::optional<std::int64_t> QueryReader::integer(const std::string& name, std::int64_t min, std::int64_t max) const {
  auto s = string(name);
  if (!s) return std::nullopt;
  std::int64_t v = 0;
  auto [p, ec] = std::from_chars(s->data(), s->data() + s->size(), v);
  if (ec != std::errc() || p != s->data() + s->size() || s->empty())
    throw bad(name, json_quoted(*s) + " is not an integer");
  if (v < min || v > max)
    throw bad(name, std::to_string(v) + " is outside " + std::to_string(min) + ".." + std::to_string(max));
  return v;
}

std::optional<double> QueryReader::number(const std::string& name, double min, double max) const {
  auto s = string(name);
  if (!s) return std::nullopt;
  double v = 0;
  auto [p, ec] = std::from_chars(s->data(), s->data() + s->size(), v);
  if (ec != std::errc() || p != s->data() + s->size() || s->empty() || !std::isfinite(v))
    throw bad(name, json_quoted(*s) + " is not a number");
  if (v < min || v > max) throw bad(name, json_quoted(*s) + " is out of range");
  return v;
}

std::optional<bool> QueryReader::boolean(const std::string& name) const {
  auto s = string(name);
  if (!s) return std::nullopt;
  if (*s == "true" || *s == "1") return true;
  if (*s == "false" || *s == "0") return false;
  throw bad(name, json_quoted(*s) + " is not true or false");
}

}  // namespace mixforge::server
