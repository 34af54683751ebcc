// mixforge apply: f(x) for each x, and mixforge invert: the inverse program.
#include <CLI/CLI.hpp>

#include <charconv>
#include <cstdio>
#include <iostream>
#include <memory>
#include <vector>
#include <optional>

#include "cli/commands.hpp"
#include "cli/program_input.hpp"
#include "mixer/interpreter.hpp"

namespace mixforge::cli {
namespace {

std::uint64_t parse_value(const std::string& s, int width) {
  std::string_view d = s;
  int base = 10;
  if (d.size() > 2 && d[0] == '0' && (d[1] == 'x' || d[1] == 'X')) {
    d.remove_prefix(2);
    base = 16;
  }
  std::uint64_t v = 0;
  auto [p, ec] = std::from_chars(d.data(), d.data() + d.size(), v, base);
  if (ec == std::errc::result_out_of_range) throw UsageError("value " + s + " does not fit in 64 bits");
  if (ec != std::errc() || p != d.data() + d.size() || d.empty())
    throw UsageError("value '" + s + "' is not a decimal or 0x-hex number");
  if (v & ~mixer::width_mask(width))
    throw UsageError("value " + s + " does not fit in the program's " + std::to_string(width) + " bits");
  return v;
}

}  // namespace

void add_apply_command(CLI::App& app) {
  struct Opts {
    std::optional<int> width;
    std::string program;
    std::vector<std::string> values;
  };
  auto o = std::make_shared<Opts>();
  auto* cmd = app.add_subcommand("apply", "Print f(x) for each x (decimal in, decimal out; hex in, hex out)");
  cmd->add_option("--width", o->width, "Width in bits (default: from the text's mask, else 32)")
      ->check(CLI::Range(1, 64));
  cmd->add_option("program", o->program, "Program text, a file path, or - for stdin")->required();
  cmd->add_option("values", o->values, "Inputs (decimal or 0x hex)")->required();
  cmd->callback([o] {
    const mixer::Program p = parse_program_argument(o->program, o->width).program;
    // Every value is checked before the first is printed.
    std::vector<std::uint64_t> xs;
    for (const std::string& s : o->values) xs.push_back(parse_value(s, p.width()));
    for (std::size_t i = 0; i < xs.size(); ++i) {
      const std::string& s = o->values[i];
      const std::uint64_t y = mixer::apply(p, xs[i]);
      char buf[32];
      if (s.size() > 2 && (s[1] == 'x' || s[1] == 'X'))
        std::snprintf(buf, sizeof buf, "0x%0*llx", (p.width() + 3) / 4, static_cast<unsigned long long>(y));
      else
        std::snprintf(buf, sizeof buf, "%llu", static_cast<unsigned long long>(y));
      std::cout << buf << "\n";
    }
  });
}

}  // namespace mixforge::cli
