// mixforge eval: score one program (or a batch) exactly or by sampling.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <tbb/parallel_for.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

#include "app/evaluate.hpp"
#include "avalanche/evaluator.hpp"
#include "cli/commands.hpp"
#include "cli/device_option.hpp"
#include "cli/program_input.hpp"
#include "mixer/json_form.hpp"

namespace mixforge::cli {
namespace {

struct EvalOptions {
  std::string device;
  std::optional<int> width;
  bool exact = false;
  std::optional<std::uint64_t> samples;
  std::uint64_t seed = 1;
  bool matrix = false;
  bool json = false;
  std::string batch;
  std::string program;
};

struct Result {
  mixer::Program program;
  avalanche::Score score;
  avalanche::AvalancheCounts counts;
  double seconds = 0;
  nlohmann::json device;  // where scoring ran: after a GPU failure under auto, the CPU and why
};

Result evaluate(const avalanche::Evaluator& ev, const avalanche::DeviceSelection& device, const mixer::Program& p,
                const EvalOptions& o, bool batch) {
  // The use case's rules; the command line's defaults (app/evaluate.hpp says how they
  // differ from the daemon's, and why).
  app::EvaluateRequest request{p, o.exact ? std::optional<bool>(true) : std::nullopt, o.samples, o.seed};
  const app::EvaluationPlan plan =
      app::plan_evaluation(request, batch ? app::command_line_batch_policy() : app::command_line_policy());
  const auto t0 = std::chrono::steady_clock::now();
  avalanche::ScoredCounts sc = app::evaluate(ev, p, plan);
  // device_json after the scoring: a GPU failure under auto shows as the CPU and why.
  Result r{p, sc.score, std::move(sc.counts), 0, avalanche::device_json(device)};
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

nlohmann::json to_json(const Result& r, bool with_matrix) {
  nlohmann::json j;
  j["id"] = r.program.id();
  j["width"] = r.program.width();
  j["text"] = mixer::format_program(r.program);
  j["steps"] = mixforge::mixer::to_json(r.program)["steps"];
  j["step_count"] = r.program.size();
  j["chi2"] = r.score.chi2;
  j["chi2_corrected"] = r.score.chi2_corrected;
  j["chi2_stderr"] = r.score.chi2_stderr;
  j["bias"] = r.score.bias;
  j["samples"] = r.score.samples;
  j["exact"] = r.score.exact;
  j["seconds"] = r.seconds;
  j["device"] = r.device;
  if (with_matrix) {
    const auto a = avalanche::avalanche_matrix(r.counts);
    const int n = r.program.width();
    nlohmann::json m = nlohmann::json::array();
    for (int i = 0; i < n; ++i)
      m.push_back(std::vector<double>(a.begin() + i * n, a.begin() + (i + 1) * n));
    j["matrix"] = std::move(m);
  }
  return j;
}

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

// One cell per (input bit row, output bit column): colour from blue (never flips)
// through white (0.5) to red (always flips); the digit is the deviation in tenths of
// the worst possible (0 = ideal).
void print_matrix(const Result& r, bool colour) {
  const int n = r.program.width();
  const auto a = avalanche::avalanche_matrix(r.counts);
  std::cout << "\navalanche matrix: rows = input bit, columns = output bit; digit = |A - 0.5| in "
               "units of 0.05 (0 = ideal)\n";
  for (int i = 0; i < n; ++i) {
    std::cout << (i < 10 ? " " : "") << i << " ";
    for (int j = 0; j < n; ++j) {
      const double v = a[static_cast<std::size_t>(i) * n + j];
      const int dev = std::min(9, static_cast<int>(std::fabs(v - 0.5) / 0.05));
      if (colour) {
        // 256-colour ramp: deviation below 0.5 -> blue, above -> red, intensity by size.
        static const int blues[] = {255, 153, 111, 75, 33, 27, 21, 19, 18, 17};
        static const int reds[] = {255, 224, 217, 210, 203, 196, 160, 124, 88, 52};
        const int c = v < 0.5 ? blues[dev] : reds[dev];
        std::cout << "\x1b[48;5;" << c << "m\x1b[38;5;" << (dev > 4 ? 231 : 16) << "m" << dev << "\x1b[0m";
      } else {
        std::cout << dev;
      }
    }
    std::cout << "\n";
  }
}

void print_human(const Result& r, bool matrix) {
  const avalanche::Score& s = r.score;
  std::cout << "program      " << mixer::format_short(r.program) << "\n"
            << "id           " << r.program.id() << "\n"
            << "width        " << r.program.width() << "\n";
  if (s.exact)
    std::cout << "mode         exact (all 2^" << r.program.width() << " inputs)\n";
  else
    std::cout << "mode         sampled (" << s.samples << " inputs)\n";
  std::cout << "chi2         " << fmt("%.10g", s.chi2) << "\n";
  if (!s.exact)
    std::cout << "corrected    " << fmt("%.6g", s.chi2_corrected) << " +- " << fmt("%.3g", s.chi2_stderr)
              << "  (chi2 - n^2/2N; noise floor " << fmt("%.3g", avalanche::noise_floor(r.program.width(), s.samples))
              << ")\n";
  std::cout << "bias         " << fmt("%.5f", s.bias) << "\n"
            << "time         " << fmt("%.3f", r.seconds) << " s\n";
  if (matrix) print_matrix(r, isatty(STDOUT_FILENO));
}

int run_batch(const avalanche::Evaluator& ev, const avalanche::DeviceSelection& device, const EvalOptions& o) {
  std::vector<std::string> lines;
  if (o.batch == "-") {
    for (std::string line; std::getline(std::cin, line);) lines.push_back(line);
  } else {
    std::error_code ec;
    if (std::filesystem::is_directory(o.batch, ec)) throw UsageError("--batch: " + o.batch + " is a folder, not a file");
    std::ifstream in(o.batch);
    if (!in) throw UsageError("--batch: cannot read " + o.batch);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    if (in.bad()) throw UsageError("--batch: cannot read " + o.batch);
  }
  std::vector<std::string> out(lines.size());
  std::vector<char> failed(lines.size(), 0);
  tbb::parallel_for(std::size_t{0}, lines.size(), [&](std::size_t k) {
    const std::string& line = lines[k];
    // Blank lines and comment lines (# or //) are skipped.
    const auto first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos || line.compare(first, 1, "#") == 0 || line.compare(first, 2, "//") == 0) return;
    try {
      const mixer::Program p = mixer::parse_program(line, {o.width, 64});
      out[k] = to_json(evaluate(ev, device, p, o, true), o.matrix).dump();
    } catch (const mixer::ParseError& e) {
      failed[k] = 1;
      out[k] = nlohmann::json{{"line", k + 1}, {"error", e.what()}}.dump();
    } catch (const std::exception& e) {
      failed[k] = 1;
      out[k] = nlohmann::json{{"line", k + 1}, {"error", e.what()}}.dump();
    }
  });
  bool any_failed = false;
  for (std::size_t k = 0; k < out.size(); ++k) {
    if (!out[k].empty()) std::cout << out[k] << "\n";
    any_failed = any_failed || failed[k];
  }
  return any_failed ? 2 : 0;
}

}  // namespace

void add_eval_command(CLI::App& app) {
  auto o = std::make_shared<EvalOptions>();
  auto* cmd = app.add_subcommand("eval", "Score a program's avalanche: exact (all inputs) or sampled");
  cmd->add_option("--width", o->width, "Width in bits (default: from the text's mask, else 32)")
      ->check(CLI::Range(1, 64));
  auto* exact = cmd->add_flag("--exact", o->exact, "All 2^n inputs (default for n <= 32)");
  cmd->add_option("--samples", o->samples, "Sampled scoring with N random inputs (default 2^22 for n > 32)")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 40))
      ->excludes(exact);
  cmd->add_option("--seed", o->seed, "Seed of the sample stream");
  cmd->add_flag("--matrix", o->matrix, "Show (or with --json, include) the avalanche matrix");
  cmd->add_flag("--json", o->json, "Print one JSON object");
  auto* batch = cmd->add_option("--batch", o->batch,
                                "Score every line of FILE (- for stdin; one program per line, statements separated by ';'; "
                                "blank lines and lines starting with # or // are skipped); "
                                "prints one JSON object per line; sampled 2^20 unless --exact/--samples");
  cmd->add_option("program", o->program, "Program text, a file path, or - for stdin")->excludes(batch);
  add_device_option(cmd, &o->device);
  cmd->callback([o] {
    if (o->batch.empty() && o->program.empty()) throw UsageError("eval needs a PROGRAM (or --batch FILE)");
    const auto ev = avalanche::Evaluator::with_own_engine();
    const avalanche::DeviceSelection device = open_device(o->device);
    ev->use_device(device);
    if (!o->batch.empty()) {
      const int rc = run_batch(*ev, device, *o);
      if (rc) throw ExitStatus{rc};
      return;
    }
    const mixer::ParsedText parsed = parse_program_argument(o->program, o->width);
    const Result r = evaluate(*ev, device, parsed.program, *o, false);
    if (o->json)
      std::cout << to_json(r, o->matrix).dump() << "\n";
    else
      print_human(r, o->matrix);
  });
}

}  // namespace mixforge::cli
