#include "cli/option_names.hpp"

#include <algorithm>

namespace mixforge::cli {

namespace {
// Fields whose option is not their own name with dashes (evolve's flags for a run's
// configuration).
struct Alias {
  const char* field;
  const char* option;
};
constexpr Alias aliases[] = {{"pool_size", "--pool"},
                             {"budget.seconds", "--seconds"},
                             {"seed_programs", "--seed-program"},
                             {"budget.tournaments", "--tournaments"},
                             {"objective.bic_weight", "--bic-weight"},
                             {"objective.higher_order_weight", "--higher-order-weight"},
                             {"objective.samples", "--objective-samples"},
                             {"rrc_cap_log2", "--rrc-cap"},
                             {"objective.rrc_weight", "--rrc-weight"},
                             {"objective.rrc_cap_log2", "--rrc-cap"},
                             {"objective.rrc_chi2_bound", "--rrc-chi2-bound"}};
}  // namespace

std::string option_for_field(const std::string& field) {
  for (const Alias& a : aliases) {
    const std::string f = a.field;
    if (field == f) return a.option;
    if (field.rfind(f + "[", 0) == 0) return std::string(a.option) + " " + field.substr(f.size());
  }
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
