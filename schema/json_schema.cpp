#include "schema/json_schema.hpp"

#include <cmath>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <vector>

#include <nlohmann/json.hpp>
#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validation_results.hpp>
#include <valijson/validator.hpp>

namespace mixforge::schema {

namespace {
// Draft-07 counts a number with a zero fractional part as an integer (16.0, what many
// JSON writers print for a float); valijson goes by the parsed type. A copy with such
// numbers as integers, or nothing when the document has none (the common case: no copy).
// Iterative: a document may be nested deeply.
std::optional<nlohmann::json> integral_floats_as_integers(const nlohmann::json& document) {
  auto integral = [](const nlohmann::json& v) {
    if (!v.is_number_float()) return false;
    const double d = v.get<double>();
    return std::isfinite(d) && std::trunc(d) == d && std::fabs(d) <= 9007199254740992.0;  // 2^53: exact
  };
  bool any = false;
  std::vector<const nlohmann::json*> todo{&document};
  while (!any && !todo.empty()) {
    const nlohmann::json* v = todo.back();
    todo.pop_back();
    if (integral(*v)) any = true;
    else if (v->is_structured())
      for (const auto& child : *v) todo.push_back(&child);
  }
  if (!any) return std::nullopt;
  nlohmann::json copy = document;
  std::vector<nlohmann::json*> work{&copy};
  while (!work.empty()) {
    nlohmann::json* v = work.back();
    work.pop_back();
    if (integral(*v)) *v = static_cast<std::int64_t>(v->get<double>());
    else if (v->is_structured())
      for (auto& child : *v) work.push_back(&child);
  }
  return copy;
}

// valijson's context is {"<root>", "[steps]", "[2]", "[kind]"}: the brackets alone do not
// say whether "[2]" is an index or a property named "2"; the value walked along does.
Path path_of(const std::vector<std::string>& context, const nlohmann::json& value) {
  Path path;
  const nlohmann::json* at = &value;
  for (const std::string& c : context) {
    if (c == "<root>") continue;
    std::string name = c;
    if (name.size() >= 2 && name.front() == '[' && name.back() == ']') name = name.substr(1, name.size() - 2);
    const bool index = at && at->is_array();
    path.push_back({name, index});
    if (!at) continue;
    if (index) {
      const std::size_t i = std::stoul(name);
      at = i < at->size() ? &(*at)[i] : nullptr;
    } else if (at->is_object() && at->contains(name)) {
      at = &(*at)[name];
    } else {
      at = nullptr;
    }
  }
  return path;
}
}  // namespace

std::string json_pointer(const Path& path) {
  std::string out;
  for (const PathStep& s : path) {
    out += '/';
    for (char ch : s.name) out += ch == '~' ? "~0" : ch == '/' ? "~1" : std::string(1, ch);
  }
  return out;
}

std::string dotted(const Path& path) {
  std::string out;
  for (const PathStep& s : path) out += s.index ? "[" + s.name + "]" : (out.empty() ? "" : ".") + s.name;
  return out.empty() ? "(root)" : out;
}

struct JsonSchema::Impl {
  valijson::Schema schema;
};

JsonSchema::JsonSchema(const nlohmann::json& document, const Resolver& resolve)
    : impl_(std::make_unique<Impl>()) {
  valijson::SchemaParser parser(valijson::SchemaParser::kDraft7);
  valijson::adapters::NlohmannJsonAdapter adapter(document);
  auto fetch = [&resolve](const std::string& uri) -> const nlohmann::json* {
    if (!resolve) throw std::runtime_error("reference to another document (" + uri + ") and no resolver");
    std::string u = uri.substr(0, uri.find('#'));
    return new nlohmann::json(resolve(u));
  };
  auto release = [](const nlohmann::json* p) { delete p; };
  try {
    parser.populateSchema(adapter, impl_->schema, fetch, release);
  } catch (const std::exception& e) {
    throw std::runtime_error(e.what());  // valijson's own, or the resolver's
  }
}

JsonSchema::~JsonSchema() = default;
JsonSchema::JsonSchema(JsonSchema&&) noexcept = default;
JsonSchema& JsonSchema::operator=(JsonSchema&&) noexcept = default;

std::vector<SchemaError> JsonSchema::errors(const nlohmann::json& document) const {
  const auto normal = integral_floats_as_integers(document);
  const nlohmann::json& value = normal ? *normal : document;
  valijson::Validator validator;
  valijson::ValidationResults results;
  valijson::adapters::NlohmannJsonAdapter target(value);
  std::vector<SchemaError> out;
  if (validator.validate(impl_->schema, target, &results)) return out;
  valijson::ValidationResults::Error e;
  while (results.popError(e)) out.push_back({path_of(e.context, value), e.description});
  return out;
}

bool JsonSchema::valid(const nlohmann::json& document) const {
  const auto normal = integral_floats_as_integers(document);
  valijson::Validator validator;
  valijson::adapters::NlohmannJsonAdapter target(normal ? *normal : document);
  return validator.validate(impl_->schema, target, nullptr);
}

}  // namespace mixforge::schema
