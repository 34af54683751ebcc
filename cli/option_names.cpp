#include "cli/option_names.hpp"

#include <algorithm>

namespace mixforge::cli {

std::string option_for_field(const std::string& field) {
  const auto end = field.find_first_of(".[");
  std::string head = field.substr(0, end);
  const std::string tail = end == std::string::npos ? "" : field.substr(end + (field[end] == '.' ? 1 : 0));
  std::string spelled;
  if (head == "program") {
    spelled = "PROGRAM";
  } else {
    std::replace(head.begin(), head.end(), '_', '-');
    spelled = "--" + head;
  }
  return tail.empty() ? spelled : spelled + " " + tail;
}

}  // namespace mixforge::cli
