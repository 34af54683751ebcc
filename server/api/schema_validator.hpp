#pragma once
// JSON Schema validation (draft-07, valijson) of request bodies against the documents in
// schema/. Cross-document $refs ("scored_function.schema.json") resolve to the embedded
// documents. Errors name the JSON pointer of the bad value.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "server/http/problem.hpp"

namespace mixforge::server {

class SchemaSet {
 public:
  // Parses every embedded *.schema.json.
  SchemaSet();
  ~SchemaSet();
  SchemaSet(const SchemaSet&) = delete;
  SchemaSet& operator=(const SchemaSet&) = delete;

  // Problems found (empty: valid). Throws std::out_of_range for an unknown schema name.
  std::vector<FieldIssue> check(const std::string& schema, const nlohmann::json& document) const;
  // Throws HttpError 400 "schema-violation" listing the issues.
  void validate(const std::string& schema, const nlohmann::json& document) const;
  std::vector<std::string> names() const;
  // The schema document as parsed JSON.
  const nlohmann::json& document(const std::string& name) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Parses a request body as JSON: 415 unless the content type is JSON (or absent),
// 400 "malformed-json" with the byte offset (and line, column) on a syntax error.
nlohmann::json parse_json_body(const Request& request);

}  // namespace mixforge::server
