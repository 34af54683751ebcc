#pragma once
// The documents of schema/ compiled into the binary at build time, so an installed mixforge
// does not need the source tree: the JSON Schemas (request validation) and the bundled
// OpenAPI document (served at /openapi.json, every $ref local).
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace mixforge::server {

struct EmbeddedDocument {
  std::string_view name;  // file name, e.g. "run.schema.json"
  std::string_view text;
};

const std::vector<EmbeddedDocument>& embedded_schemas();

// The exact bytes of ${build}/schema/openapi.json (target mixforge_openapi).
std::string_view embedded_openapi();
// The same, parsed.
nlohmann::json openapi_document();

}  // namespace mixforge::server
