#pragma once
// Reading query parameters strictly: unknown names, repeats and malformed values are
// 400 problems naming the parameter ("?limit").
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "server/http/http_types.hpp"

namespace mixforge::app {
class RequestError;
}

namespace mixforge::server {

class HttpError;

// A use case's refusal (app::RequestError) of a field this route takes as a query
// parameter: 400 invalid-query-parameter naming "?field".
HttpError query_parameter_error(const app::RequestError& error);

class QueryReader {
 public:
  // Throws HttpError 400 for any parameter not in `allowed` or given twice.
  QueryReader(const Request& request, std::initializer_list<const char*> allowed);
  std::optional<std::string> string(const std::string& name) const;
  std::optional<std::int64_t> integer(const std::string& name, std::int64_t min, std::int64_t max) const;
  std::optional<double> number(const std::string& name, double min, double max) const;
  std::optional<bool> boolean(const std::string& name) const;

 private:
  const Request& request_;
};

// Percent-decoding ("%2F" -> "/", and '+' -> ' ' when form is true). nullopt when malformed.
std::optional<std::string> percent_decode(std::string_view s, bool form);
// Splits "a=1&b=2" into decoded pairs; nullopt when an escape is malformed.
std::optional<std::vector<std::pair<std::string, std::string>>> parse_query(std::string_view q);

}  // namespace mixforge::server
