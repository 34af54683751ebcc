// bench_rrc_depth: the RRC depth of mixers (avalanche/quality/rrc/rrc_battery.hpp), one line each,
// for the calibration table against the published TFR figures (bench/rrc_calibration.sh).
// Usage: bench_rrc_depth [--cap LOG2] [--json] NAME=PROGRAM_TEXT ...
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

#include "avalanche/evaluator.hpp"
#include "avalanche/quality/rrc/rrc_battery.hpp"
#include "mixer/text_form.hpp"

using namespace mixforge;

int main(int argc, char** argv) {
  avalanche::rrc::RrcOptions options;
  bool json = false;
  const auto evaluator = avalanche::Evaluator::with_own_engine();
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--cap" && i + 1 < argc) {
      options.cap_log2 = std::atoi(argv[++i]);
      continue;
    }
    if (a == "--json") {
      json = true;
      continue;
    }
    const auto eq = a.find('=');
    const std::string name = eq == std::string::npos ? a : a.substr(0, eq);
    const std::string text = eq == std::string::npos ? a : a.substr(eq + 1);
    const mixer::Program p = mixer::parse_program(text);
    const auto f = evaluator->batch_function(p);
    const auto r = avalanche::rrc::rrc_battery(f, p.width(), options, nullptr, [&](const auto& len) {
      std::fprintf(stderr, "  %s 2^%d: worst %s on %s p=%.3g (x%d = %.3g) %.1f s\n", name.c_str(), len.log2,
                   len.worst.test.c_str(), len.worst.transform.c_str(), len.worst.p, len.p_values,
                   len.worst.p_corrected, len.seconds);
    });
    if (json) {
      nlohmann::json j = avalanche::rrc::to_json(r);
      j["name"] = name;
      j["text"] = mixer::format_program(p);
      std::cout << j.dump() << std::endl;
    } else {
      std::printf("%-24s depth %s%d  %s  %.1f s\n", name.c_str(), r.passed_cap ? ">" : "", r.depth_log2,
                  r.first_failure ? (r.first_failure->test + " on " + r.first_failure->transform).c_str() : "-",
                  r.seconds);
      std::fflush(stdout);
    }
  }
}
