#pragma once
// Which requests a browser may make us serve. DNS rebinding: the Host header must name
// the bound address, a localhost name or an allowed host (421 otherwise). Cross-site
// request forgery: a state-changing request whose Origin is neither the daemon's own
// nor an allowed CORS origin is refused (403), and a POST must carry a JSON body with
// Content-Type: application/json (415 otherwise), which no HTML form or "simple" fetch
// can send without a CORS preflight. CORS is off unless origins are configured.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "server/http/http_types.hpp"
#include "server/http/router.hpp"

namespace mixforge::server {

struct HttpPolicyOptions {
  std::string bind = "127.0.0.1";
  std::vector<std::string> allowed_hosts;  // host names (no port); "*" allows any
  std::vector<std::string> cors_origins;   // "https://tool.example:8443"; "*" allows any
};

class HttpPolicy {
 public:
  explicit HttpPolicy(HttpPolicyOptions options);

  // 421 when the Host header names another host (requests without Host pass: only
  // browsers can be tricked into rebinding, and they always send it).
  std::optional<Response> check_host(const Request& request) const;
  // 403 (Origin) and 415 (Content-Type / body) for a matched route.
  std::optional<Response> check_request(const Request& request, const Route& route) const;
  // Headers for the answer to a request from an allowed cross origin (preflights get
  // the allowed methods and headers too); none otherwise.
  std::vector<std::pair<std::string, std::string>> cors_headers(const Request& request, const std::string& allow) const;

  // Whether the Origin header value is the request's own origin or an allowed one.
  bool origin_allowed(const Request& request) const;

 private:
  bool cors_allowed(const std::string& origin) const;
  HttpPolicyOptions o_;
  bool bind_any_ = false;
};

}  // namespace mixforge::server
