// Build-time tool: the default family's GLSL for the Vulkan shaders, written by shader/'s
// exporter from the shipped bundle (baker/sampling/default_family.bundle.json).
//   export_mixers_glsl BUNDLE.json OUT.glsl
#include <nlohmann/json.hpp>

#include <fstream>
#include <iostream>

#include "baker/trace/mixers_glsl.hpp"
#include "mixer/json_form.hpp"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: export_mixers_glsl BUNDLE.json OUT.glsl\n";
    return 2;
  }
  try {
    std::ifstream in(argv[1]);
    if (!in) throw std::runtime_error(std::string("cannot open ") + argv[1]);
    const auto j = nlohmann::json::parse(in);
    std::vector<mixforge::baker::MixerInfo> lanes;
    for (const auto& p : j.at("programs")) {
      mixforge::baker::MixerInfo m{mixforge::mixer::program_from_json(p.at("program")), -1, false};
      if (p.contains("score") && p["score"].is_object()) {
        m.chi2 = p["score"].at("chi2").get<double>();
        m.exact = p["score"].value("exact", false);
      }
      lanes.push_back(m);
    }
    const std::string code = mixforge::baker::mixers_glsl(lanes);
    std::ofstream out(argv[2]);
    out << code;
    if (!out) throw std::runtime_error(std::string("cannot write ") + argv[2]);
  } catch (const std::exception& e) {
    std::cerr << "export_mixers_glsl: " << argv[1] << ": " << e.what() << "\n";
    return 1;
  }
  return 0;
}
