#include "tests/contract/contract_validator.hpp"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "schema/json_schema.hpp"

namespace mixforge::contract {

namespace {
using nlohmann::json;

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::vector<std::string> segments(const std::string& path) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < path.size()) {
    if (path[i] == '/') {
      ++i;
      continue;
    }
    std::size_t j = path.find('/', i);
    if (j == std::string::npos) j = path.size();
    out.push_back(path.substr(i, j - i));
    i = j;
  }
  return out;
}

std::string path_of(const std::string& target) {
  std::string p = target.substr(0, target.find('?'));
  // An absolute-form target ("http://host:port/path") is reduced to its path.
  if (p.rfind("http://", 0) == 0 || p.rfind("https://", 0) == 0) {
    const auto slash = p.find('/', p.find("//") + 2);
    p = slash == std::string::npos ? "/" : p.substr(slash);
  }
  return p;
}

std::string header(const Exchange& e, const std::string& name) {
  const std::string n = lower(name);
  for (const auto& [k, v] : e.headers)
    if (lower(k) == n) return v;
  return {};
}

bool has_header(const Exchange& e, const std::string& name) {
  const std::string n = lower(name);
  for (const auto& [k, v] : e.headers)
    if (lower(k) == n) return true;
  return false;
}

std::string media_type(const std::string& content_type) {
  std::string base = content_type.substr(0, content_type.find(';'));
  while (!base.empty() && base.back() == ' ') base.pop_back();
  while (!base.empty() && base.front() == ' ') base.erase(base.begin());
  return lower(base);
}

bool is_json_media(const std::string& m) {
  return m == "application/json" || (m.size() > 5 && m.compare(m.size() - 5, 5, "+json") == 0);
}

// Statuses any request may receive whatever its route (the HTTP layer answers them
// before routing): malformed request, foreign Origin, body or headers too large,
// Host not allowed, admission control, shutting down. Every operation lists them too.
const std::set<int> kAnyRequest = {400, 403, 413, 421, 429, 431, 503};
}  // namespace

struct ContractValidator::Impl {
  json doc;
  struct Template {
    std::string text;
    std::vector<std::string> segments;
    int literals = 0;
  };
  std::vector<Template> templates;
  mutable std::mutex mutex;  // guards schemas
  mutable std::map<std::string, schema::JsonSchema> schemas;  // by JSON pointer

  const json& resolve(const json& node) const {
    const json* n = &node;
    for (int depth = 0; depth < 16 && n->is_object() && n->contains("$ref"); ++depth) {
      const std::string ref = (*n)["$ref"].get<std::string>();
      if (ref.rfind("#/", 0) != 0) throw std::runtime_error("non-local $ref " + ref);
      n = &doc.at(json::json_pointer(ref.substr(1)));
    }
    return *n;
  }

  // The schema at a JSON pointer of the document, parsed once. The document itself is
  // the root (a root "$ref" to the pointer), so "#/components/..." resolve. Checked as
  // draft 7: the keywords schema/ uses mean the same in 2020-12.
  const schema::JsonSchema& schema_at(const std::string& pointer) const {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = schemas.find(pointer);
    if (it != schemas.end()) return it->second;
    json root = {{"$ref", "#" + pointer}, {"components", doc.at("components")}, {"paths", doc.at("paths")}};
    return schemas.emplace(pointer, schema::JsonSchema(root)).first->second;
  }
};

ContractValidator::ContractValidator(const json& openapi) : impl_(std::make_unique<Impl>()) {
  impl_->doc = openapi;
  if (!openapi.contains("paths") || !openapi["paths"].is_object())
    throw std::runtime_error("OpenAPI document has no paths");
  for (const auto& [path, item] : openapi["paths"].items()) {
    Impl::Template t{path, segments(path), 0};
    for (const auto& s : t.segments) t.literals += s.front() != '{';
    impl_->templates.push_back(std::move(t));
  }
  // Most literal segments first: "/runs/{id}/pool" before a hypothetical "/runs/{id}/{x}".
  std::stable_sort(impl_->templates.begin(), impl_->templates.end(),
                   [](const auto& a, const auto& b) { return a.literals > b.literals; });
}

ContractValidator::~ContractValidator() = default;

std::string ContractValidator::bundled_path() {
#ifdef MIXFORGE_OPENAPI_JSON
  return MIXFORGE_OPENAPI_JSON;
#else
  return "schema/openapi.json";
#endif
}

const ContractValidator& ContractValidator::bundled() {
  static const ContractValidator instance([] {
    std::ifstream in(bundled_path(), std::ios::binary);
    if (!in) throw std::runtime_error("cannot read the bundled OpenAPI document " + bundled_path() +
                                      " (build the mixforge_openapi target)");
    return json::parse(in);
  }());
  return instance;
}

const json& ContractValidator::document() const { return impl_->doc; }

std::string ContractValidator::path_template(const std::string& target) const {
  const std::string path = path_of(target);
  if (path.size() > 1 && path.back() == '/') return {};  // the daemon never routes a trailing slash
  const auto parts = segments(path);
  for (const auto& t : impl_->templates) {
    if (t.segments.size() != parts.size()) continue;
    bool ok = true;
    for (std::size_t i = 0; ok && i < parts.size(); ++i)
      ok = t.segments[i].front() == '{' ? !parts[i].empty() : t.segments[i] == parts[i];
    if (ok) return t.text;
  }
  return {};
}

std::vector<std::pair<std::string, std::string>> ContractValidator::operations() const {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [path, item] : impl_->doc["paths"].items())
    for (const auto& [method, op] : item.items())
      if (method != "parameters" && method.rfind("x-", 0) != 0) out.emplace_back(path, method);
  return out;
}

std::vector<int> ContractValidator::documented_statuses(const std::string& tmpl, const std::string& method) const {
  std::vector<int> out;
  const auto& op = impl_->doc["paths"].at(tmpl).at(lower(method));
  for (const auto& [code, r] : op.at("responses").items())
    if (!code.empty() && std::isdigit(static_cast<unsigned char>(code[0]))) out.push_back(std::stoi(code));
  return out;
}

std::vector<std::string> ContractValidator::check(const Exchange& e) const {
  std::vector<std::string> v;
  // Methods are case-sensitive (RFC 9110): "get" is not GET but an unknown method.
  const bool standard = std::all_of(e.method.begin(), e.method.end(), [](char c) { return c >= 'A' && c <= 'Z'; });
  const std::string method = standard ? lower(e.method) : "x-unknown-method";
  if (e.status >= 500 && e.status != 503 && e.status != 501) v.push_back("server error " + std::to_string(e.status));
  const std::string tmpl = path_template(e.target);
  const std::string path = path_of(e.target);
  const bool api = path.rfind("/api/", 0) == 0 || path == "/api";
  if (tmpl.empty()) {
    // Outside the document: the dashboard's static files (not part of the API contract,
    // any non-5xx answer) or an API path that does not exist (404, or what the HTTP layer
    // answers before routing).
    if (api && e.status != 404 && e.status != 405 && !kAnyRequest.count(e.status))
      v.push_back("status " + std::to_string(e.status) + " for a path outside the document (expected 404)");
    if (api && e.status >= 400 && media_type(header(e, "content-type")) != "application/problem+json")
      v.push_back("error without application/problem+json");
    return v;
  }
  const json& item = impl_->doc["paths"][tmpl];
  if (!item.contains(method)) {
    if (e.status != 405 && !kAnyRequest.count(e.status))
      v.push_back("status " + std::to_string(e.status) + " for " + e.method + " on " + tmpl +
                  ", an undocumented method (expected 405)");
    if (e.status == 405 && !has_header(e, "Allow")) v.push_back("405 without Allow");
    return v;
  }
  const json& op = item[method];
  const std::string code = std::to_string(e.status);
  const json* response = nullptr;
  std::string response_pointer;
  auto escape = [](std::string s) {
    std::string out;
    for (char c : s) out += c == '~' ? "~0" : c == '/' ? "~1" : std::string(1, c);
    return out;
  };
  for (const std::string& key : {code, std::string(1, code[0]) + "XX", std::string("default")}) {
    if (op["responses"].contains(key)) {
      const json& raw = op["responses"][key];
      response_pointer = raw.contains("$ref") ? raw["$ref"].get<std::string>().substr(1)
                                              : "/paths/" + escape(tmpl) + "/" + method + "/responses/" + key;
      response = &impl_->resolve(raw);
      break;
    }
  }
  const std::string where = e.method + " " + tmpl;
  if (!response) {
    v.push_back("status " + code + " is not documented for " + where);
    return v;
  }
  // Required headers (Retry-After on 429, Allow on 405, ...).
  if (response->contains("headers"))
    for (const auto& [name, h] : (*response)["headers"].items())
      if (impl_->resolve(h).value("required", false) && !has_header(e, name))
        v.push_back("header " + name + " is required on " + code + " for " + where);
  const std::string media = media_type(header(e, "content-type"));
  if (method == "head") {
    if (!e.body.empty()) v.push_back("HEAD answered with a body");
    return v;
  }
  if (!response->contains("content") || (*response)["content"].empty()) {
    if (!e.body.empty()) v.push_back(code + " for " + where + " documents no body, got " + std::to_string(e.body.size()) + " bytes");
    return v;
  }
  const json& content = (*response)["content"];
  if (!content.contains(media)) {
    std::string listed;
    for (const auto& [m, x] : content.items()) listed += (listed.empty() ? "" : ", ") + m;
    v.push_back("content type '" + header(e, "content-type") + "' is not documented for " + code + " of " + where +
                " (documented: " + listed + ")");
    return v;
  }
  if (!e.body_complete) return v;
  const json& mt = content[media];
  if (!mt.contains("schema")) return v;
  json body;
  if (is_json_media(media)) {
    try {
      body = json::parse(e.body);
    } catch (const std::exception& x) {
      v.push_back("body of " + code + " for " + where + " is not JSON: " + x.what());
      return v;
    }
  } else {
    body = e.body;  // text bodies validate as strings
  }
  const std::string schema_pointer = (response_pointer.empty() ? std::string() : response_pointer) +
                                     "/content/" + escape(media) + "/schema";
  const auto errors = impl_->schema_at(schema_pointer).errors(body);
  for (std::size_t i = 0; i < errors.size() && i < 5; ++i) {
    const std::string at = errors[i].path.empty() ? "(root)" : schema::json_pointer(errors[i].path);
    v.push_back("body of " + code + " for " + where + " violates the schema at " + at + ": " + errors[i].message);
  }
  return v;
}

std::string describe(const Exchange& e, const std::vector<std::string>& violations) {
  std::ostringstream out;
  out << e.method << " " << (e.target.size() > 200 ? e.target.substr(0, 200) + "..." : e.target) << " -> " << e.status
      << ": ";
  for (std::size_t i = 0; i < violations.size(); ++i) out << (i ? "; " : "") << violations[i];
  if (!e.body.empty()) out << " [body: " << (e.body.size() > 300 ? e.body.substr(0, 300) + "..." : e.body) << "]";
  return out.str();
}

}  // namespace mixforge::contract
