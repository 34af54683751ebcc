#include "server/http/problem.hpp"

namespace mixforge::server {

HttpError::HttpError(int status, std::string slug, std::string detail)
    : std::runtime_error(detail), status_(status), slug_(std::move(slug)) {}

HttpError&& HttpError::with_field(std::string pointer) && {
  extensions_["field"] = std::move(pointer);
  return std::move(*this);
}
HttpError&& HttpError::with_position(int line, int column) && {
  extensions_["line"] = line;
  extensions_["column"] = column;
  return std::move(*this);
}
HttpError&& HttpError::with_issues(const std::vector<FieldIssue>& issues) && {
  nlohmann::json arr = nlohmann::json::array();
  for (const auto& i : issues) arr.push_back({{"field", i.pointer}, {"message", i.message}});
  extensions_["errors"] = std::move(arr);
  if (!issues.empty() && !extensions_.contains("field")) extensions_["field"] = issues.front().pointer;
  return std::move(*this);
}
HttpError&& HttpError::with_header(std::string name, std::string value) && {
  headers.emplace_back(std::move(name), std::move(value));
  return std::move(*this);
}

std::string status_title(int status) {
  switch (status) {
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 406: return "Not Acceptable";
    case 408: return "Request Timeout";
    case 409: return "Conflict";
    case 411: return "Length Required";
    case 413: return "Content Too Large";
    case 414: return "URI Too Long";
    case 415: return "Unsupported Media Type";
    case 421: return "Misdirected Request";
    case 422: return "Unprocessable Content";
    case 429: return "Too Many Requests";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 503: return "Service Unavailable";
    default: return status < 500 ? "Client Error" : "Server Error";
  }
}

Response problem_response(int status, const std::string& slug, const std::string& detail,
                          const nlohmann::json& extensions, const std::string& instance) {
  nlohmann::json body = {{"type", "https://mixforge.invalid/problems/" + slug},
                         {"title", status_title(status)},
                         {"status", status},
                         {"detail", detail}};
  if (!instance.empty()) body["instance"] = instance;
  for (auto it = extensions.begin(); it != extensions.end(); ++it) body[it.key()] = it.value();
  Response r;
  r.status = status;
  r.content_type = "application/problem+json";
  // Details may quote invalid UTF-8 from the request: replace it rather than throw.
  r.body = body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return r;
}

Response problem_response(const HttpError& error, const std::string& instance) {
  Response r = problem_response(error.status(), error.slug(), error.what(), error.extensions(), instance);
  for (const auto& h : error.headers) r.headers.push_back(h);
  return r;
}

std::string path_to_pointer(const std::string& dotted, const std::string& prefix) {
  if (dotted.empty() || dotted == "(root)") return prefix.empty() ? "" : prefix;
  std::string out = prefix;
  std::string token;
  auto flush = [&] {
    if (token.empty()) return;
    std::string esc;
    for (char c : token) esc += c == '~' ? "~0" : c == '/' ? "~1" : std::string(1, c);
    out += "/" + esc;
    token.clear();
  };
  for (char c : dotted) {
    if (c == '.' || c == '[' || c == ']')
      flush();
    else
      token += c;
  }
  flush();
  return out;
}

}  // namespace mixforge::server
