#include "support/reference_functions.hpp"

#include <nlohmann/json.hpp>

#include "support/process.hpp"

namespace mixforge::test {

mixer::Program lowbias32() {
  return mixer::Program(32, {{mixer::StepKind::xorshift_right, 16},
                             {mixer::StepKind::mul_const, 0x7feb352d},
                             {mixer::StepKind::xorshift_right, 15},
                             {mixer::StepKind::mul_const, 0x846ca68b},
                             {mixer::StepKind::xorshift_right, 16}});
}

std::vector<ReferenceMixer> reference_mixers(const std::string& file) {
  const std::string path = std::string(MIXFORGE_TESTS_DATA_DIR) + "/" + file;
  const auto j = nlohmann::json::parse(read_file(path));
  std::vector<ReferenceMixer> out;
  for (const auto& r : j)
    out.push_back({r.at("name").get<std::string>(), r.at("width").get<int>(), r.at("text").get<std::string>(),
                   r.at("chi2").get<double>(), r.at("bias").get<double>(), r.value("rrc_depth_log2", 0),
                   r.value("rrc_cap_log2", 0), r.value("rrc_passed_cap", false)});
  if (out.empty()) throw std::runtime_error(path + " holds no functions");
  return out;
}

}  // namespace mixforge::test
