#pragma once
// The documents of schema/ (JSON Schemas and the OpenAPI document), compiled into the
// binary at build time so an installed mixforge does not need the source tree.
#include <string_view>
#include <vector>

namespace mixforge::server {

struct EmbeddedDocument {
  std::string_view name;  // file name, e.g. "run.schema.json"
  std::string_view text;
};

const std::vector<EmbeddedDocument>& embedded_schemas();

}  // namespace mixforge::server
