#include "server/http/http_policy.hpp"

#include <algorithm>
#include <cctype>

#include <nlohmann/json.hpp>

#include "server/http/auth.hpp"
#include "server/http/problem.hpp"

namespace mixforge::server {

namespace {
std::string trim(std::string s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t");
  return s.substr(b, e - b + 1);
}

// "Example.COM:8080" -> "example.com"; "[::1]:80" -> "::1".
std::string host_name(const std::string& host) {
  std::string h = ascii_lower(trim(host));
  if (!h.empty() && h.front() == '[') {
    const auto close = h.find(']');
    return close == std::string::npos ? h : h.substr(1, close - 1);
  }
  const auto colon = h.rfind(':');
  if (colon != std::string::npos && h.find(':') == colon) h = h.substr(0, colon);
  if (!h.empty() && h.back() == '.') h.pop_back();  // "localhost." is localhost
  return h;
}

bool is_ip_literal(const std::string& h) { return is_ipv4_literal(h) || h.find(':') != std::string::npos; }

bool is_localhost_name(const std::string& h) {
  // RFC 6761: localhost and names under .localhost resolve to loopback only.
  return is_loopback_address(h) || (h.size() > 10 && h.compare(h.size() - 10, 10, ".localhost") == 0);
}

std::string media_type(const std::string& content_type) {
  return ascii_lower(trim(content_type.substr(0, content_type.find(';'))));
}
}  // namespace

HttpPolicy::HttpPolicy(HttpPolicyOptions options) : o_(std::move(options)) {
  for (auto& h : o_.allowed_hosts) h = host_name(h);
  for (auto& c : o_.cors_origins) {
    c = ascii_lower(trim(c));
    while (!c.empty() && c.back() == '/') c.pop_back();
  }
  const std::string b = host_name(o_.bind);
  bind_any_ = b == "0.0.0.0" || b == "::" || b.empty();
}

std::optional<Response> HttpPolicy::check_host(const Request& request) const {
  const auto it = request.headers.find("host");
  if (it == request.headers.end()) return std::nullopt;
  const std::string h = host_name(it->second);
  const bool ok = is_localhost_name(h) || h == host_name(o_.bind) ||
                  // Bound to every address: any address literal reaches us; a rebinding
                  // attack needs a name.
                  (bind_any_ && is_ip_literal(h)) ||
                  std::any_of(o_.allowed_hosts.begin(), o_.allowed_hosts.end(),
                              [&](const std::string& a) { return a == "*" || a == h; });
  if (ok) return std::nullopt;
  return problem_response(421, "misdirected-request",
                          "this server does not answer for host \"" + h +
                              "\" (it answers for its own address and localhost; start it with "
                              "--allowed-host " +
                              h + " to allow the name)",
                          {{"field", "host"}}, request.path);
}

bool HttpPolicy::cors_allowed(const std::string& origin) const {
  const std::string o = ascii_lower(origin);
  return std::any_of(o_.cors_origins.begin(), o_.cors_origins.end(),
                     [&](const std::string& a) { return a == "*" || a == o; });
}

bool HttpPolicy::origin_allowed(const Request& request) const {
  const auto it = request.headers.find("origin");
  if (it == request.headers.end()) return true;  // not from a browser page
  const std::string origin = ascii_lower(trim(it->second));
  const auto host = request.headers.find("host");
  if (host != request.headers.end() && origin == "http://" + ascii_lower(trim(host->second))) return true;
  return cors_allowed(origin);
}

std::optional<Response> HttpPolicy::check_request(const Request& request, const Route& route) const {
  if (!route.mutating()) return std::nullopt;
  if (!origin_allowed(request))
    return problem_response(403, "cross-origin-request",
                            "requests from origin " + request.header("origin") +
                                " may not change anything here (allowed: the daemon's own origin and "
                                "the origins given with --cors-origin)",
                            {{"field", "origin"}}, request.path);
  if (request.method == "POST") {
    const std::string ct = request.header("content-type");
    if (media_type(ct) != "application/json")
      return problem_response(415, "unsupported-media-type",
                              ct.empty() ? "this request needs Content-Type: application/json and a JSON body "
                                           "({} when there are no fields)"
                                         : "request body must be application/json, not " + ct,
                              {{"field", "content-type"}}, request.path);
    if (request.body.find_first_not_of(" \t\r\n") == std::string::npos)
      return problem_response(415, "missing-json-body", "this request needs a JSON body ({} when there are no fields)",
                              {{"field", ""}}, request.path);
  }
  return std::nullopt;
}

std::vector<std::pair<std::string, std::string>> HttpPolicy::cors_headers(const Request& request,
                                                                          const std::string& allow) const {
  std::vector<std::pair<std::string, std::string>> out;
  const auto it = request.headers.find("origin");
  if (it == request.headers.end() || !cors_allowed(trim(it->second))) return out;
  out.emplace_back("Access-Control-Allow-Origin", trim(it->second));
  out.emplace_back("Vary", "Origin");
  if (request.method == "OPTIONS" && request.headers.count("access-control-request-method")) {
    out.emplace_back("Access-Control-Allow-Methods", allow.empty() ? "GET, HEAD, OPTIONS" : allow);
    out.emplace_back("Access-Control-Allow-Headers", "Content-Type, Authorization, Last-Event-ID");
    out.emplace_back("Access-Control-Max-Age", "600");
  } else {
    out.emplace_back("Access-Control-Expose-Headers", "Location, Retry-After, X-Function-Name");
  }
  return out;
}

}  // namespace mixforge::server
