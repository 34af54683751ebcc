// Build-time tool: bundles schema/openapi.json (operations) and schema/*.schema.json (the
// JSON Schemas, single source of truth) into one OpenAPI 3.1 document whose every $ref is
// local (#/components/...), the form Redocly, Spectral, Prism, dredd and openapi-typescript
// accept. Writes the document and a .cpp embedding its exact bytes (served at /openapi.json).
//
//   openapi_bundler SCHEMA_DIR OUT_JSON OUT_CPP
//
// What it adds to the hand-written operations, so the rules hold for every operation:
//   - the shared problem responses (RFC 9457) each operation can receive (see add_statuses);
//   - a HEAD operation for every GET and an OPTIONS operation for every path;
//   - `security: []` on reads (only POST and DELETE ever need the bearer token).
// Any reference it cannot rewrite is an error (the build fails), never a silent dangle.
#include <cctype>
#include <filesystem>
#include <functional>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

namespace fs = std::filesystem;
using nlohmann::json;
using ordered = nlohmann::ordered_json;

namespace {

ordered read_json(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + p.string());
  try {
    return ordered::parse(in);
  } catch (const std::exception& e) {
    throw std::runtime_error(p.string() + ": " + e.what());
  }
}

const std::string kSuffix = ".schema.json";

std::string stem_of(const std::string& file) { return file.substr(0, file.size() - kSuffix.size()); }

// "x.schema.json" -> #/components/schemas/x; "x.schema.json#/definitions/d" and, inside x,
// "#/definitions/d" -> #/components/schemas/x_d (definitions are hoisted to components).
std::string rewrite_ref(const std::string& ref, const std::string& self, const std::set<std::string>& known) {
  std::string file = ref, fragment;
  if (const auto hash = ref.find('#'); hash != std::string::npos) {
    file = ref.substr(0, hash);
    fragment = ref.substr(hash + 1);
  }
  std::string target = file.empty() ? stem_of(self) : file;
  if (!file.empty()) {
    if (file.size() <= kSuffix.size() || file.compare(file.size() - kSuffix.size(), kSuffix.size(), kSuffix) != 0)
      throw std::runtime_error("in " + self + ": reference " + ref + " is not to a schema/*.schema.json file");
    target = stem_of(file);
  }
  std::string name = target;
  if (!fragment.empty()) {
    const std::string defs = "/definitions/";
    if (fragment.rfind(defs, 0) != 0 || fragment.find('/', defs.size()) != std::string::npos)
      throw std::runtime_error("in " + self + ": reference " + ref + " points inside a schema; only " +
                               "whole files and #/definitions/NAME can be bundled");
    name += "_" + fragment.substr(defs.size());
  }
  if (!known.count(name)) throw std::runtime_error("in " + self + ": reference " + ref + " resolves to nothing");
  return "#/components/schemas/" + name;
}

void rewrite_refs(ordered& node, const std::string& self, const std::set<std::string>& known) {
  if (node.is_object()) {
    for (auto it = node.begin(); it != node.end(); ++it) {
      if (it.key() == "$ref" && it.value().is_string()) {
        const std::string ref = it.value().get<std::string>();
        if (ref.rfind("#/components/", 0) != 0) it.value() = rewrite_ref(ref, self, known);
      } else {
        rewrite_refs(it.value(), self, known);
      }
    }
  } else if (node.is_array()) {
    for (auto& v : node) rewrite_refs(v, self, known);
  }
}

// A problem response shared by every operation that can receive it.
struct Shared {
  int status;
  const char* name;
};
const Shared kShared[] = {
    {400, "BadRequest"},         {401, "Unauthorized"},
    {403, "Forbidden"},          {404, "NotFound"},
    {405, "MethodNotAllowed"},   {409, "Conflict"},
    {413, "ContentTooLarge"},    {415, "UnsupportedMediaType"},
    {421, "MisdirectedRequest"}, {422, "UnprocessableContent"},
    {429, "TooManyRequests"},    {431, "HeadersTooLarge"},
    {501, "NotImplemented"},     {503, "ServiceUnavailable"},
};

const char* shared_name(int status) {
  for (const auto& s : kShared)
    if (s.status == status) return s.name;
  throw std::runtime_error("no shared response for status " + std::to_string(status));
}

void add_status(ordered& op, int status) {
  auto& responses = op["responses"];
  const std::string key = std::to_string(status);
  if (!responses.contains(key))
    responses[key] = {{"$ref", std::string("#/components/responses/") + shared_name(status)}};
}

// Every operation: malformed request (400), foreign Origin (403), body over the limit
// (413, any method), Host not allowed (421), admission control (429), headers over the
// limit (431), out of memory or shutting down (503). POST and DELETE: bearer token (401);
// POST: a JSON body is required (415) and checked against its schema (422). Operations
// with a path parameter: 404. Operations with query parameters: 422 for a value outside
// its schema (400 for an unknown parameter).
void add_statuses(ordered& op, const std::string& method, bool path_params) {
  for (int s : {400, 403, 413, 421, 429, 431, 503}) add_status(op, s);
  if (method == "post" || method == "delete") add_status(op, 401);
  if (method == "post") {
    add_status(op, 415);
    add_status(op, 422);
  }
  if (path_params) add_status(op, 404);
  if (op.contains("parameters"))
    for (const auto& p : op["parameters"])
      if (p.value("in", "") == "query") add_status(op, 422);
}

bool has_path_params(const std::string& path) { return path.find('{') != std::string::npos; }

ordered sorted_responses(const ordered& responses) {
  std::map<std::string, ordered> byKey;
  for (auto it = responses.begin(); it != responses.end(); ++it) byKey[it.key()] = it.value();
  ordered out = ordered::object();
  for (auto& [k, v] : byKey) out[k] = v;
  return out;
}

std::string capitalised(std::string s) {
  if (!s.empty()) s[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(s[0])));
  return s;
}

// HEAD on a GET route: the same statuses and headers, no body (RFC 9110 9.3.2). The daemon
// answers HEAD wherever it answers GET, so 405 is never among them.
ordered head_of(const ordered& get) {
  ordered head = ordered::object();
  head["tags"] = get["tags"];
  head["summary"] = "Headers only: " + get["summary"].get<std::string>();
  head["description"] = "HEAD on `" + get["operationId"].get<std::string>() +
                        "`: the same status and headers as GET, without a body (RFC 9110).";
  head["operationId"] = get["operationId"].get<std::string>() + "Head";
  if (get.contains("parameters")) head["parameters"] = get["parameters"];
  head["security"] = ordered::array();
  ordered responses = ordered::object();
  for (auto it = get["responses"].begin(); it != get["responses"].end(); ++it) {
    if (it.key()[0] == '2') {
      ordered r = {{"description", it.value()["description"]}};
      if (it.value().contains("headers")) r["headers"] = it.value()["headers"];
      responses[it.key()] = r;
    } else {
      responses[it.key()] = it.value();
    }
  }
  head["responses"] = sorted_responses(responses);
  return head;
}

ordered options_of(const std::string& path, const ordered& item, const std::string& tag) {
  std::string allow;
  for (const char* m : {"get", "head", "post", "put", "patch", "delete"})
    if (item.contains(m)) {
      std::string upper = m;
      for (auto& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      allow += (allow.empty() ? "" : ", ") + upper;
    }
  allow += ", OPTIONS";
  // operationId from the path: /api/v1/runs/{id}/pause -> optionsApiV1RunsIdPause.
  std::string id = "options";
  std::string word;
  for (char c : path + "/") {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      word += c;
    } else if (!word.empty()) {
      id += capitalised(word);
      word.clear();
    }
  }
  ordered op = ordered::object();
  op["tags"] = ordered::array({tag});
  op["summary"] = "Methods allowed on " + path;
  op["description"] = "Answers 204 with `Allow: " + allow +
                      "`. CORS is off unless origins are configured; preflights from other origins get 403.";
  op["operationId"] = id;
  op["security"] = ordered::array();
  op["responses"]["204"] = {{"description", "The methods allowed on the path"},
                            {"headers",
                             {{"Allow",
                               {{"description", "Methods allowed on the path"},
                                {"schema", {{"type", "string"}, {"example", allow}}}}}}}};
  // OPTIONS is answered on every path, so no 405 here either.
  add_statuses(op, "options", has_path_params(path));
  op["responses"] = sorted_responses(op["responses"]);
  return op;
}

void write_file(const fs::path& p, const std::string& text) {
  if (p.has_parent_path()) fs::create_directories(p.parent_path());
  std::ofstream out(p, std::ios::binary);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + p.string());
}

}  // namespace

int main(int argc, char** argv) try {
  if (argc != 4) {
    std::cerr << "usage: openapi_bundler SCHEMA_DIR OUT_JSON OUT_CPP\n";
    return 2;
  }
  const fs::path dir = argv[1];
  ordered doc = read_json(dir / "openapi.json");

  // Component schemas: every schema file, its definitions hoisted beside it.
  std::map<std::string, ordered> schemas;  // file stem -> document
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string file = entry.path().filename().string();
    if (file.size() > kSuffix.size() && file.compare(file.size() - kSuffix.size(), kSuffix.size(), kSuffix) == 0)
      schemas[stem_of(file)] = read_json(entry.path());
  }
  std::set<std::string> known;
  for (const auto& [stem, s] : schemas) {
    known.insert(stem);
    if (s.contains("definitions"))
      for (auto it = s["definitions"].begin(); it != s["definitions"].end(); ++it) known.insert(stem + "_" + it.key());
  }
  ordered components = ordered::object();
  for (auto& [stem, s] : schemas) {
    // OpenAPI 3.1 schemas are JSON Schema 2020-12 in the OAS dialect. Without $id the
    // local references resolve against this document; without $schema the document's
    // dialect applies (the draft-07 keywords used here mean the same in 2020-12).
    s.erase("$schema");
    s.erase("$id");
    ordered defs = s.contains("definitions") ? s["definitions"] : ordered::object();
    s.erase("definitions");
    rewrite_refs(s, stem + kSuffix, known);
    components[stem] = s;
    for (auto it = defs.begin(); it != defs.end(); ++it) {
      ordered d = it.value();
      rewrite_refs(d, stem + kSuffix, known);
      components[stem + "_" + it.key()] = d;
    }
  }
  for (auto it = doc["components"]["schemas"].begin(); it != doc["components"]["schemas"].end(); ++it)
    if (!components.contains(it.key())) components[it.key()] = it.value();
  doc["components"]["schemas"] = components;

  // Operations: shared statuses, HEAD for GET, OPTIONS for every path.
  ordered paths = ordered::object();
  for (auto it = doc["paths"].begin(); it != doc["paths"].end(); ++it) {
    const std::string path = it.key();
    ordered item = it.value();
    std::string tag;
    for (const char* m : {"get", "post", "put", "patch", "delete"}) {
      if (!item.contains(m)) continue;
      ordered& op = item[m];
      for (const char* required : {"operationId", "summary", "description", "tags"})
        if (!op.contains(required)) throw std::runtime_error(std::string(m) + " " + path + " has no " + required);
      if (tag.empty()) tag = op["tags"][0].get<std::string>();
      add_statuses(op, m, has_path_params(path));
      if (std::string(m) == "get" && !op.contains("security")) op["security"] = ordered::array();
      op["responses"] = sorted_responses(op["responses"]);
    }
    if (item.contains("get") && !item.contains("head")) item["head"] = head_of(item["get"]);
    if (!item.contains("options")) item["options"] = options_of(path, item, tag);
    paths[path] = item;
  }
  doc["paths"] = paths;

  // Every reference of the result must resolve inside it.
  const json plain = json::parse(doc.dump());
  std::function<void(const json&)> check = [&](const json& node) {
    if (node.is_object()) {
      for (auto it = node.begin(); it != node.end(); ++it) {
        if (it.key() == "$ref" && it.value().is_string()) {
          const std::string ref = it.value().get<std::string>();
          if (ref.rfind("#/", 0) != 0 || !plain.contains(json::json_pointer(ref.substr(1))))
            throw std::runtime_error("bundled document: unresolved reference " + ref);
        } else {
          check(it.value());
        }
      }
    } else if (node.is_array()) {
      for (const auto& v : node) check(v);
    }
  };
  check(plain);

  const std::string text = doc.dump(2) + "\n";
  write_file(argv[2], text);
  const std::string delim = "MFOPENAPI";
  if (text.find(")" + delim + "\"") != std::string::npos) throw std::runtime_error("raw string delimiter in document");
  std::string cpp =
      "// Generated by openapi_bundler from schema/openapi.json and schema/*.schema.json; do not edit.\n"
      "#include \"server/api/embedded_schemas.hpp\"\n\n"
      "namespace mixforge::server {\n\n"
      "std::string_view embedded_openapi() {\n"
      // An array and its size, not a constexpr string_view: the length of a document this
      // large (> 256 KiB) would exceed GCC's constexpr loop limit.
      "  static const char text[] = R\"" +
      delim + "(" + text + ")" + delim +
      "\";\n"
      "  return std::string_view(text, sizeof text - 1);\n"
      "}\n\n"
      "}  // namespace mixforge::server\n";
  write_file(argv[3], cpp);
  return 0;
} catch (const std::exception& e) {
  std::cerr << "openapi_bundler: " << e.what() << "\n";
  return 1;
}
