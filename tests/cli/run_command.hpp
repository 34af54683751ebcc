#pragma once
// Runs the real mixforge binary (through tests/support/process.hpp) and captures what it
// prints on stdout and stderr together.
#include <string>

#include "support/process.hpp"

using mixforge::test::CommandResult;

// args: a shell command line after the binary's name (the tests write them as a user
// would type them; quote arguments with quoted()). stdin_text, when not empty, is the
// program's standard input followed by a newline; else stdin is /dev/null.
inline CommandResult run_mixforge(const std::string& args, const std::string& stdin_text = "") {
  mixforge::test::SpawnOptions o;
  if (!stdin_text.empty()) o.stdin_text = stdin_text + "\n";
  return mixforge::test::run_command({"/bin/sh", "-c", "exec " + mixforge::test::shell_quoted(MIXFORGE_EXE) + " " + args}, o);
}

inline std::string quoted(const std::string& s) { return mixforge::test::shell_quoted(s); }

// As run_mixforge, with an environment variable set for the binary: assignment is
// NAME=VALUE (VALUE is quoted here).
inline CommandResult run_mixforge_with(const std::string& assignment, const std::string& args,
                                       const std::string& stdin_text = "") {
  mixforge::test::SpawnOptions o;
  if (!stdin_text.empty()) o.stdin_text = stdin_text + "\n";
  const auto eq = assignment.find('=');
  const std::string env = assignment.substr(0, eq + 1) + quoted(assignment.substr(eq + 1));
  return mixforge::test::run_command(
      {"/bin/sh", "-c", "exec env " + env + " " + mixforge::test::shell_quoted(MIXFORGE_EXE) + " " + args}, o);
}
