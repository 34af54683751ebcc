#pragma once
// A program in a request body: C-like text or the JSON form, with an optional width.
// Errors become 422 problems naming the field (a JSON pointer) and, for text, the line
// and column.
#include <optional>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "mixer/program.hpp"

namespace mixforge::server {

// value: a string (text form) or an object (JSON form); pointer: where it sits in the
// request ("/program", "/programs/1/program"); width: a width the request gives
// (checked against the JSON form's own).
Program program_from_request(const nlohmann::json& value, const std::string& pointer,
                             std::optional<int> width, const std::string& width_pointer);

}  // namespace mixforge::server
