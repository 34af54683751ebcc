#pragma once
// A compiled JSON Schema (draft-07, checked by valijson) and the errors it finds, each with
// the path to the bad value. The one place valijson's templates are compiled: the server's
// request bodies, the run configuration and the tests all check documents through it.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace mixforge::schema {

// One step from a value into a member: a property name, or an array index.
struct PathStep {
  std::string name;  // the property, or the index in decimal
  bool index = false;
};
using Path = std::vector<PathStep>;

// RFC 6901 pointer ("/steps/2/kind"; "" for the document itself).
std::string json_pointer(const Path& path);
// Dotted form for messages ("early_reject.margin", "steps[2].kind"; "(root)").
std::string dotted(const Path& path);

struct SchemaError {
  Path path;            // to the value that failed, outermost step first
  std::string message;  // valijson's description
};

class JsonSchema {
 public:
  // The document a cross-document $ref names (the reference's URI without its fragment);
  // throws when there is none.
  using Resolver = std::function<nlohmann::json(const std::string& uri)>;

  // Throws std::runtime_error when the document is not a schema valijson can load.
  explicit JsonSchema(const nlohmann::json& document, const Resolver& resolve = {});
  ~JsonSchema();
  JsonSchema(JsonSchema&&) noexcept;
  JsonSchema& operator=(JsonSchema&&) noexcept;

  // Every error valijson reports, in its order: the failing values and the enclosing
  // levels ("Failed to validate against schema associated with property ..."). Empty:
  // valid. Thread-safe.
  std::vector<SchemaError> errors(const nlohmann::json& value) const;
  bool valid(const nlohmann::json& value) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace mixforge::schema
