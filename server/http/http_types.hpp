#pragma once
// The request and response value types every handler works with. No Beast here: handlers
// are plain functions Request -> Response, testable without sockets.
#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace mixforge::server {

class SseClient;

// ASCII lower case (header names, media types, host names).
std::string ascii_lower(std::string_view s);

struct Request {
  std::string method;                                      // "GET", "POST", ...
  std::string target;                                      // as sent: path and query
  std::string path;                                        // percent-decoded path, no query
  std::vector<std::pair<std::string, std::string>> query;  // decoded, in order
  std::map<std::string, std::string> headers;              // lower-case names
  std::string body;
  std::map<std::string, std::string> params;  // filled by the router from the path pattern
  // Set by the HTTP server when the client disconnects while the request is in work.
  std::shared_ptr<std::atomic<bool>> client_gone = std::make_shared<std::atomic<bool>>(false);

  std::string header(std::string_view lower_name) const;
  const std::string& param(const std::string& name) const;  // router path parameter
  bool cancelled() const { return client_gone && client_gone->load(); }
};

struct Response {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
  // Non-null: a Server-Sent Events stream; the server writes its frames until it closes.
  std::shared_ptr<SseClient> stream;

  static Response json(int status, const nlohmann::json& body);
  static Response text(int status, std::string body, std::string content_type = "text/plain; charset=utf-8");
  std::string header(std::string_view name) const;  // case-insensitive, "" when absent
};

}  // namespace mixforge::server
