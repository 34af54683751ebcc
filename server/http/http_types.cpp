#include "server/http/http_types.hpp"

#include <algorithm>
#include <cctype>

#include <nlohmann/json.hpp>

namespace mixforge::server {

namespace {
bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}
}  // namespace

std::string ascii_lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string Request::header(std::string_view lower_name) const {
  auto it = headers.find(std::string(lower_name));
  return it == headers.end() ? std::string() : it->second;
}

const std::string& Request::param(const std::string& name) const {
  static const std::string empty;
  auto it = params.find(name);
  return it == params.end() ? empty : it->second;
}

Response Response::json(int status, const nlohmann::json& body) {
  Response r;
  r.status = status;
  r.body = body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return r;
}

Response Response::text(int status, std::string body, std::string content_type) {
  Response r;
  r.status = status;
  r.body = std::move(body);
  r.content_type = std::move(content_type);
  return r;
}

std::string Response::header(std::string_view name) const {
  if (iequals(name, "content-type")) return content_type;
  for (const auto& [k, v] : headers)
    if (iequals(k, name)) return v;
  return {};
}

}  // namespace mixforge::server
