#include "app/request_error.hpp"

namespace mixforge::app {

std::string field_below(const std::string& prefix, const std::string& path) {
  if (path.empty()) return prefix;
  if (prefix.empty()) return path;
  return prefix + (path.front() == '[' ? "" : ".") + path;
}

}  // namespace mixforge::app
