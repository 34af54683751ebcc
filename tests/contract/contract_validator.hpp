#pragma once
// Checks an HTTP exchange with the daemon against the bundled OpenAPI document
// (build/<preset>/schema/openapi.json): the path matches a path template, the status is
// documented for the operation, the content type is one documented for that status and
// the body validates against its schema (valijson), documented required headers are there.
// No GoogleTest here: the e2e harness, the negative test and the chaos driver all link it.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace mixforge::contract {

struct Exchange {
  std::string method;  // "GET", "HEAD", ... as sent (methods are case-sensitive)
  std::string target;  // request target: path with optional "?query"
  int status = 0;
  std::vector<std::pair<std::string, std::string>> headers;  // response headers
  std::string body;                                          // response body as received
  bool body_complete = true;  // false: the client streamed the body away (SSE)
};

class ContractValidator {
 public:
  explicit ContractValidator(const nlohmann::json& openapi);
  ~ContractValidator();
  ContractValidator(const ContractValidator&) = delete;
  ContractValidator& operator=(const ContractValidator&) = delete;

  // The bundled document of this build tree, loaded once (thread-safe).
  static const ContractValidator& bundled();
  // Its path (MIXFORGE_OPENAPI_JSON, set by CMake).
  static std::string bundled_path();

  // Every way the exchange breaks the contract; empty when it keeps it. Thread-safe.
  std::vector<std::string> check(const Exchange& exchange) const;

  // The path template ("/api/v1/runs/{id}") the target's path matches, or "" when none.
  std::string path_template(const std::string& target) const;

  // Every documented (template, lower-case method) pair, and the statuses documented for it.
  std::vector<std::pair<std::string, std::string>> operations() const;
  std::vector<int> documented_statuses(const std::string& path_template, const std::string& method) const;
  const nlohmann::json& document() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// "METHOD target -> status: problem; problem" on one line, for test failure messages.
std::string describe(const Exchange& exchange, const std::vector<std::string>& violations);

}  // namespace mixforge::contract
