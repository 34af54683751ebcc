// mixforge quality: judge a function beyond single-bit avalanche (avalanche/quality/quality.hpp):
// exact single-bit avalanche, bit independence, higher-order avalanche, the second-order
// differential, counter-mode
// dieharder runs and, with --rrc, the RRC depth (avalanche/quality/rrc/rrc_battery.hpp). A
// FUNCTION_ID's report is cached in the database (as the daemon does).
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <regex>

#include "app/quality.hpp"
#include "avalanche/counts.hpp"
#include "avalanche/evaluator.hpp"
#include "avalanche/quality/quality.hpp"
#include "cli/commands.hpp"
#include "cli/program_input.hpp"
#include "cli/stored_functions.hpp"
#include "evolver/manager/quality_cache.hpp"
#include "evolver/manager/run_manager.hpp"

namespace mixforge::cli {
namespace {

struct QualityCliOptions {
  std::optional<int> width;
  bool json = false;
  std::string size = "standard";
  std::uint64_t seed = 1;
  bool no_battery = false;
  bool refresh = false;
  bool rrc = false;
  std::optional<int> rrc_cap;
  std::string data = "mixforge-data";
  std::string program;
};

std::string num(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

std::string pad(std::string s, std::size_t w) {
  if (s.size() < w) s.append(w - s.size(), ' ');
  return s;
}

// {3} or {3, 9}: the bits of a difference.
std::string bits_text(const nlohmann::json& bits) {
  std::string s = "{";
  for (std::size_t k = 0; k < bits.size(); ++k) s += (k ? ", " : "") + std::to_string(bits[k].get<int>());
  return s + "}";
}

std::string log2_text(std::uint64_t n) {
  if (n && (n & (n - 1)) == 0) {
    int k = 0;
    while ((std::uint64_t{1} << k) != n) ++k;
    return "2^" + std::to_string(k);
  }
  return std::to_string(n);
}

void print_human(const nlohmann::json& r) {
  const auto& f = r["function"];
  const auto& o = r["options"];
  std::cout << pad("program", 24) << f["short"].get<std::string>() << "\n"
            << pad("id", 24) << f["id"].get<std::string>() << "\n"
            << pad("width", 24) << f["width"].get<int>() << "\n"
            << pad("options", 24) << o["size"].get<std::string>() << ", seed " << o["seed"].dump()
            << (r.value("cached", false) ? " (cached report)" : "") << "\n\n";
  const auto& a = r["avalanche"];
  const int n = f["width"];
  std::cout << pad("single-bit avalanche", 24)
            << (a["exact"].get<bool>() ? "exact (all 2^" + std::to_string(n) + " inputs)"
                                       : "sampled (" + log2_text(a["samples"]) + " inputs)")
            << "\n"
            << pad("  chi2", 24) << num("%.10g", a["chi2"]) << "\n"
            << pad("  bias", 24) << num("%.5f", a["bias"]) << "\n";
  const auto& w = a["worst_cell"];
  std::cout << pad("  worst cell", 24) << "input " << w["input_bit"] << " -> output " << w["output_bit"] << ": "
            << num("%.6f", w["flip_probability"]) << " (|A - 1/2| = " << num("%.6f", w["deviation"]) << ")\n";
  const auto& b = r["bit_independence"];
  std::cout << pad("bit independence", 24);
  if (!b["applicable"].get<bool>()) {
    std::cout << "not applicable (fewer than 2 output bits)\n";
  } else {
    std::cout << (b["exact"].get<bool>() ? "every input pair (" + log2_text(b["samples_per_bit"]) + " per input bit)"
                                         : log2_text(b["samples_per_bit"]) + " inputs per input bit")
              << ", " << b["cells"] << " cells\n"
              << pad("  chi2", 24) << num("%.6g", b["chi2"]) << " (p = " << num("%.3g", b["p_value"]) << ")  "
              << b["verdict"].get<std::string>() << "\n";
    const auto& wp = b["worst_pair"];
    std::cout << pad("  worst pair", 24) << "input " << wp["input_bit"] << " -> outputs " << wp["output_bits"][0]
              << ", " << wp["output_bits"][1] << ": correlation " << num("%+.4f", wp["correlation"]) << "\n";
  }
  std::cout << pad("higher-order avalanche", 24) << "output Hamming distance against Binomial(" << n << ", 1/2)\n";
  for (const auto& h : r["higher_order"])
    std::cout << pad("  " + std::to_string(h["flipped_bits"].get<int>()) + " bits flipped", 24) << "chi2 "
              << num("%.4g", h["chi2"]) << " on " << h["dof"] << " dof (p = " << num("%.3g", h["p_value"]) << ")  "
              << pad(h["verdict"].get<std::string>(), 8) << "mean distance " << num("%.4f", h["mean_distance"])
              << " (" << (h["exact"].get<bool>() ? "all " + std::to_string(h["samples"].get<std::uint64_t>()) + " pairs"
                                                 : log2_text(h["samples"]) + " samples")
              << ")\n";
  const auto& so = r["second_order_differential"];
  std::cout << "second-order differential ";
  if (!so["applicable"].get<bool>()) {
    std::cout << "not applicable (fewer than 2 bits)\n";
  } else {
    const auto& sb = so["bits"];
    const auto& wc = so["worst_cell"];
    const auto& sw = so["weight"];
    const auto& sp = so["weight_by_pair"];
    std::cout << "D = f(x) ^ f(x ^ a) ^ f(x ^ b) ^ f(x ^ a ^ b)\n"
              << pad("  pairs (a, b)", 24) << so["single_bit_pairs"] << " single-bit, " << so["weight_two_pairs"]
              << " weight-2; "
              << (so["exact"].get<bool>()
                      ? "every coset x + <a, b> (" + log2_text(so["samples_per_pair"]) + " per pair)"
                      : log2_text(so["samples_per_pair"]) + " inputs per pair")
              << "\n"
              << pad("  bits of D", 24) << "chi2 " << num("%.6g", sb["chi2"]) << " on " << sb["dof"]
              << " dof (p = " << num("%.3g", sb["p_value"]) << ")  " << pad(sb["verdict"].get<std::string>(), 8)
              << sb["constant_cells"] << " constant cells\n"
              << pad("  worst cell", 24) << "a " << bits_text(wc["a"]) << ", b " << bits_text(wc["b"]) << " -> output "
              << wc["output_bit"] << ": P(1) = " << num("%.6f", wc["probability"]) << " (z = " << num("%+.1f", wc["z"])
              << ")\n"
              << pad("  weight of D", 24) << "chi2 " << num("%.4g", sw["chi2"]) << " on " << sw["dof"]
              << " dof (p = " << num("%.3g", sw["p_value"]) << ")  " << pad(sw["verdict"].get<std::string>(), 8)
              << "mean " << num("%.4f", sw["mean"]) << "\n"
              << pad("  weight by pair", 24) << "chi2 " << num("%.6g", sp["chi2"]) << " on " << sp["dof"]
              << " dof (p = " << num("%.3g", sp["p_value"]) << ")  " << pad(sp["verdict"].get<std::string>(), 8);
    if (sp.contains("worst_pair")) {
      const auto& wp = sp["worst_pair"];
      std::cout << "worst a " << bits_text(wp["a"]) << ", b " << bits_text(wp["b"]) << ": chi2 "
                << num("%.4g", wp["chi2"]) << " on " << wp["dof"] << " dof";
    }
    std::cout << "\n"
              << pad("  all three", 24) << "p = " << num("%.3g", so["p_value"]) << "  "
              << so["verdict"].get<std::string>() << "\n";
  }
  const auto& c = r["counter_battery"];
  std::cout << pad("counter battery", 24);
  if (c["status"] != "ran") {
    std::cout << c["status"].get<std::string>() << ": " << c.value("reason", "") << "\n";
  } else {
    std::cout << c["tool"].get<std::string>() << ", " << c["size"].get<std::string>() << " size, "
              << c["tests"].size() << " tests on each stream f(T(i))\n";
    for (const auto& t : c["transforms"]) {
      std::cout << pad("  " + t["name"].get<std::string>(), 24) << t["passed"] << " passed, " << t["weak"]
                << " weak, " << t["failed"] << " failed  (" << num("%.1f", t["seconds"]) << " s)";
      std::string bad;
      for (const auto& x : t["results"])
        if (x["verdict"] == "failed") bad += (bad.empty() ? "" : ", ") + x["test"].get<std::string>();
      if (!bad.empty()) std::cout << "  failed: " << bad;
      std::cout << "\n";
    }
    std::cout << pad("  all transforms", 24) << c["passed"] << " passed, " << c["weak"] << " weak, " << c["failed"]
              << " failed\n";
  }
  const auto& rrc = r["rrc"];
  if (!rrc.is_null()) {
    std::cout << pad("RRC depth", 24) << (rrc["passed_cap"].get<bool>() ? ">" : "") << rrc["depth_log2"]
              << (rrc["passed_cap"].get<bool>()
                      ? " (passed the cap 2^" + std::to_string(rrc["cap_log2"].get<int>()) + ")"
                      : " (first failure at 2^" + std::to_string(rrc["depth_log2"].get<int>()) + " stream elements)")
              << ", " << rrc["streams"] << " streams\n";
    if (!rrc["first_failure"].is_null()) {
      const auto& x = rrc["first_failure"];
      std::cout << pad("  first failure", 24) << x["test"].get<std::string>() << " on "
                << x["transform"].get<std::string>() << ": p = " << num("%.3g", x["p"]) << "\n";
    }
    std::cout << pad("  time", 24) << num("%.1f", rrc["seconds"]) << " s\n";
  }
  std::cout << pad("time", 24) << num("%.1f", r["seconds"]) << " s" << (r.value("cached", false) ? " (when computed)" : "")
            << "\n";
}

}  // namespace

void add_quality_command(CLI::App& app) {
  auto o = std::make_shared<QualityCliOptions>();
  auto* cmd =
      app.add_subcommand("quality",
                         "Judge a function beyond single-bit avalanche: bit independence, higher-order avalanche, "
                         "the second-order differential, counter-mode dieharder tests");
  cmd->add_option("--width", o->width, "Width in bits (default: from the text's mask, else 32)")
      ->check(CLI::Range(1, 64));
  cmd->add_flag("--json", o->json, "Print one JSON object (schema/quality.schema.json)");
  cmd->add_option("--size", o->size,
                  "standard (exact avalanche up to 32 bits, about a minute of dieharder at 32 bits) or quick");
  cmd->add_option("--seed", o->seed, "Seed of every sampled measure (default 1)");
  cmd->add_flag("--no-battery", o->no_battery, "Skip the counter-mode dieharder tests (not the RRC battery)");
  cmd->add_flag("--rrc", o->rrc,
                "Also the RRC depth: log2 of the stream length at which the first of the 4n counter streams "
                "fails (seconds for a function that fails early, minutes for one that passes 2^24)");
  cmd->add_option("--rrc-cap", o->rrc_cap, "With --rrc: the longest streams tested, as log2 (default 24; 11..40)");
  cmd->add_flag("--refresh", o->refresh, "FUNCTION_ID: compute again even when a cached report exists");
  if (const char* env = std::getenv("MIXFORGE_DATA")) o->data = env;
  cmd->add_option("--data", o->data, "Data directory for FUNCTION_ID (default $MIXFORGE_DATA or ./mixforge-data)");
  cmd->add_option("program", o->program, "PROGRAM text, a file path, - for stdin, or a stored FUNCTION_ID");
  cmd->callback([o] {
    if (o->program.empty()) throw UsageError("quality needs a PROGRAM or a FUNCTION_ID");
    static const std::regex function_id("[0-9a-f]{16}");
    std::error_code ec;
    app::QualityRequest r;
    r.size = o->size;
    r.seed = o->seed;
    r.battery = !o->no_battery;
    r.refresh = o->refresh;
    r.stored = std::regex_match(o->program, function_id) && !std::filesystem::exists(o->program, ec);
    r.width = o->width;
    r.rrc = o->rrc;
    r.rrc_cap_log2 = o->rrc_cap;
    // The use case's rules (app/quality.hpp), before any lookup or scoring.
    const app::QualityPlan plan = app::plan_quality(r, app::command_line_quality_policy());
    nlohmann::json report;
    const auto evaluator = avalanche::Evaluator::with_own_engine();
    if (r.stored) {
      const auto db = open_store(o->data, "quality");
      const auto f = db->function(o->program);
      if (!f) throw UsageError("quality: no function with id " + o->program + " in " + o->data);
      app::check_quality_width(plan, f->program.width());
      report = evolver::stored_function_quality(*db, *evaluator, f->program, plan.options, plan.refresh);
    } else {
      const mixer::Program p = parse_program_argument(o->program, o->width).program;
      app::check_quality_width(plan, p.width());
      // Each RRC length on stderr as it is done (a deep function takes minutes); --json
      // prints the one object alone.
      avalanche::rrc::RrcProgress progress;
      if (!o->json)
        progress = [](const avalanche::rrc::RrcLength& l) {
          std::fprintf(stderr, "rrc 2^%d: worst p %.3g (%s on %s), %.1f s\n", l.log2, l.worst.p, l.worst.test.c_str(),
                       l.worst.transform.c_str(), l.seconds);
        };
      report = avalanche::to_json(avalanche::assess_quality(*evaluator, p, plan.options, nullptr, progress));
      report["cached"] = false;
      report["computed_at"] =
          std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    }
    if (o->json)
      std::cout << report.dump() << "\n";
    else
      print_human(report);
  });
}

}  // namespace mixforge::cli
