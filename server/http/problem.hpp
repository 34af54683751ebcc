#pragma once
// RFC 9457 problem details: every 4xx/5xx answer is application/problem+json with a type,
// title, status and detail, plus the offending field (a JSON pointer), or line and column
// for program text, so a client can point at the mistake.
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "server/http/http_types.hpp"

namespace mixforge::server {

struct FieldIssue {
  std::string pointer;  // JSON pointer into the request body ("/budget/seconds"), or a query "?limit"
  std::string message;
};

// Thrown by handlers; the router turns it into a problem response.
class HttpError : public std::runtime_error {
 public:
  HttpError(int status, std::string slug, std::string detail);
  int status() const { return status_; }
  const std::string& slug() const { return slug_; }
  // Extra members of the problem body (field, line, column, errors, ...).
  nlohmann::json& extensions() { return extensions_; }
  const nlohmann::json& extensions() const { return extensions_; }
  std::vector<std::pair<std::string, std::string>> headers;

  HttpError&& with_field(std::string pointer) &&;
  HttpError&& with_position(int line, int column) &&;
  HttpError&& with_issues(const std::vector<FieldIssue>& issues) &&;
  HttpError&& with_header(std::string name, std::string value) &&;

 private:
  int status_;
  std::string slug_;
  nlohmann::json extensions_ = nlohmann::json::object();
};

// The standard title for a status ("Bad Request", ...).
std::string status_title(int status);
Response problem_response(int status, const std::string& slug, const std::string& detail,
                          const nlohmann::json& extensions = nlohmann::json::object(),
                          const std::string& instance = {});
Response problem_response(const HttpError& error, const std::string& instance = {});

// "steps[2].constant" / "early_reject.margin" / "(root)" -> "/steps/2/constant", prefixed.
std::string path_to_pointer(const std::string& dotted, const std::string& prefix = {});

}  // namespace mixforge::server
