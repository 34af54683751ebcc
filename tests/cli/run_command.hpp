#pragma once
// Runs the real mixforge binary through the shell and captures what it prints.
#include <array>
#include <cstdio>
#include <string>
#include <sys/wait.h>

struct CommandResult {
  int exit_code = -1;
  std::string out;  // stdout and stderr together (2>&1)
};

inline CommandResult run_mixforge(const std::string& args, const std::string& stdin_text = "") {
  std::string cmd = std::string(MIXFORGE_EXE) + " " + args + " 2>&1";
  if (!stdin_text.empty()) {
    // Pass stdin through a here-document; the tests' texts contain no 'EOF_MF' line.
    cmd = std::string(MIXFORGE_EXE) + " " + args + " 2>&1 <<'EOF_MF'\n" + stdin_text + "\nEOF_MF";
  } else {
    cmd += " </dev/null";
  }
  CommandResult r;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf;
  std::size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  const int status = pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

// Single-quote an argument for the shell.
inline std::string quoted(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}
