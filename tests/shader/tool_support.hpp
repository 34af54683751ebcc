#pragma once
// Helpers for the shader tests: scratch folders under the build tree and word files. Running
// tools, finding them and reading files come from tests/support/process.hpp.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "support/process.hpp"

namespace mixforge::test {

// A fresh folder under <build>/test-scratch, removed on destruction.
class ScratchDir : public TempDir {
 public:
  explicit ScratchDir(const std::string& tag);
};

void write_text(const std::filesystem::path& p, const std::string& text);
std::string read_text(const std::filesystem::path& p);
void write_words(const std::filesystem::path& p, const std::vector<std::uint32_t>& words);
std::vector<std::uint32_t> read_words(const std::filesystem::path& p);

}  // namespace mixforge::test
