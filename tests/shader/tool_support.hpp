#pragma once
// Helpers for the shader tests: external tools, scratch folders, files.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace mixforge::test {

// The tool's path on PATH, or empty.
std::string find_tool(const std::string& name);

struct CommandResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};
// Runs argv (no shell; output captured through a file).
CommandResult run_command(const std::vector<std::string>& argv,
                          const std::filesystem::path& cwd = {});

// A fresh folder under the build tree (or /tmp), removed on destruction.
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& tag);
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

void write_text(const std::filesystem::path& p, const std::string& text);
void write_words(const std::filesystem::path& p, const std::vector<std::uint32_t>& words);
std::vector<std::uint32_t> read_words(const std::filesystem::path& p);
std::string read_text(const std::filesystem::path& p);

}  // namespace mixforge::test
