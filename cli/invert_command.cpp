// mixforge invert: print the inverse program in text form.
#include <CLI/CLI.hpp>

#include <iostream>
#include <memory>
#include <optional>

#include "cli/commands.hpp"
#include "cli/program_input.hpp"
#include "mixer/inverse.hpp"
#include "mixer/text_form.hpp"
#include "mixer/width.hpp"

namespace mixforge::cli {

void add_invert_command(CLI::App& app) {
  struct Opts {
    std::optional<int> width;
    std::string program;
  };
  auto o = std::make_shared<Opts>();
  auto* cmd = app.add_subcommand("invert", "Print the inverse program (g(f(x)) == x) in text form");
  cmd->add_option("--width", o->width, "Width in bits (default: from the text's mask, else 32)")
      ->check(CLI::Range(1, 64));
  cmd->add_option("program", o->program, "Program text, a file path, or - for stdin")->required();
  cmd->callback([o] {
    const mixer::ParsedText parsed = parse_program_argument(o->program, o->width);
    const mixer::Program inv = mixer::inverse(parsed.program);
    // A width other than the default goes with the text (as a mask, which the parser
    // reads as the width), so the inverse read back is the same function.
    if (inv.width() != 32)
      std::cout << parsed.variable << " &= " << mixer::hex_literal(mixer::width_mask(inv.width())) << ";  // width "
                << inv.width() << "\n";
    std::cout << mixer::format_program(inv, parsed.variable) << "\n";
  });
}

}  // namespace mixforge::cli
