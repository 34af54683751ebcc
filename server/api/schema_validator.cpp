#include "server/api/schema_validator.hpp"

#include <algorithm>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "schema/json_schema.hpp"
#include "server/api/embedded_schemas.hpp"

namespace mixforge::server {

namespace {
// The document's file name in a reference's URI (JsonSchema passes it without the fragment).
std::string file_name_of(const std::string& uri) {
  const auto slash = uri.rfind('/');
  return slash == std::string::npos ? uri : uri.substr(slash + 1);
}
}  // namespace

struct SchemaSet::Impl {
  std::map<std::string, nlohmann::json> documents;
  std::map<std::string, schema::JsonSchema> schemas;
};

SchemaSet::SchemaSet() : impl_(std::make_unique<Impl>()) {
  for (const auto& d : embedded_schemas()) {
    try {
      impl_->documents[std::string(d.name)] = nlohmann::json::parse(d.text);
    } catch (const nlohmann::json::exception& e) {
      throw std::runtime_error("embedded schema " + std::string(d.name) + " is not JSON: " + e.what());
    }
  }
  auto& docs = impl_->documents;
  for (const auto& [name, doc] : docs) {
    if (name.size() < 12 || name.compare(name.size() - 12, 12, ".schema.json") != 0) continue;
    auto fetch = [&docs](const std::string& uri) {
      auto it = docs.find(file_name_of(uri));
      if (it == docs.end()) throw std::runtime_error("schema reference to unknown document " + uri);
      return it->second;
    };
    try {
      impl_->schemas.emplace(name, schema::JsonSchema(doc, fetch));
    } catch (const std::exception& e) {
      throw std::runtime_error("embedded schema " + name + " could not be loaded: " + e.what());
    }
  }
}

SchemaSet::~SchemaSet() = default;

std::vector<FieldIssue> SchemaSet::check(const std::string& name, const nlohmann::json& document) const {
  const auto errors = impl_->schemas.at(name).errors(document);
  std::vector<FieldIssue> issues;
  // valijson reports the enclosing failures too ("failed to validate against schema
  // associated with property"); the most specific (deepest) come first in our list.
  std::vector<FieldIssue> wrappers;
  for (const auto& e : errors) {
    FieldIssue issue{schema::json_pointer(e.path), e.message};
    // Name the offending property itself for unknown and missing properties.
    for (const char* marker : {"constraints: '", "Missing required property '"}) {
      const auto at = issue.message.find(marker);
      if (at == std::string::npos) continue;
      const auto from = at + std::string(marker).size();
      const auto to = issue.message.find('\'', from);
      if (to != std::string::npos) issue.pointer += schema::json_pointer({{issue.message.substr(from, to - from)}});
    }
    // valijson also reports every enclosing level ("Failed to validate against schema
    // associated with property name 'x'"); those say nothing the leaf does not.
    const bool wrapper = issue.message.rfind("Failed to validate against schema associated", 0) == 0 ||
                         issue.message.rfind("Failed to validate item #", 0) == 0;
    (wrapper ? wrappers : issues).push_back(std::move(issue));
  }
  if (issues.empty()) issues = std::move(wrappers);
  std::stable_sort(issues.begin(), issues.end(),
                   [](const FieldIssue& a, const FieldIssue& b) { return a.pointer.size() > b.pointer.size(); });
  return issues;
}

void SchemaSet::validate(const std::string& schema, const nlohmann::json& document) const {
  auto issues = check(schema, document);
  if (issues.empty()) return;
  const auto& first = issues.front();
  std::string detail = "request body does not match " + schema + ": at " +
                       (first.pointer.empty() ? std::string("(root)") : first.pointer) + ": " + first.message;
  if (issues.size() > 20) issues.resize(20);
  // Well-formed JSON that the schema refuses: 422 (400 is for malformed syntax).
  throw HttpError(422, "schema-violation", detail).with_issues(issues);
}

std::vector<std::string> SchemaSet::names() const {
  std::vector<std::string> out;
  for (const auto& [n, d] : impl_->documents) out.push_back(n);
  return out;
}

const nlohmann::json& SchemaSet::document(const std::string& name) const { return impl_->documents.at(name); }

nlohmann::json parse_json_body(const Request& request) {
  const std::string ct = request.header("content-type");
  if (!ct.empty()) {
    std::string base = ct.substr(0, ct.find(';'));
    while (!base.empty() && base.back() == ' ') base.pop_back();
    for (auto& c : base) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (base != "application/json" && base != "application/problem+json")
      throw HttpError(415, "unsupported-media-type", "request body must be application/json, not " + ct)
          .with_field("content-type");
  }
  if (request.body.empty())
    throw HttpError(400, "malformed-json", "request body is empty; a JSON object is expected").with_field("");
  try {
    return nlohmann::json::parse(request.body);
  } catch (const nlohmann::json::out_of_range& e) {
    std::string what = e.what();
    const auto pos = what.find("] ");
    if (pos != std::string::npos) what = what.substr(pos + 2);
    throw HttpError(400, "malformed-json", "request body is not valid JSON: " + what);
  } catch (const nlohmann::json::parse_error& e) {
    // Line and column of the byte offset nlohmann reports (1-based).
    const std::size_t at = std::min<std::size_t>(e.byte == 0 ? 0 : e.byte - 1, request.body.size());
    int line = 1, column = 1;
    for (std::size_t i = 0; i < at; ++i) {
      if (request.body[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    std::string what = e.what();
    const auto pos = what.find("] ");
    if (pos != std::string::npos) what = what.substr(pos + 2);
    throw HttpError(400, "malformed-json", "request body is not valid JSON: " + what).with_position(line, column);
  }
}

}  // namespace mixforge::server
