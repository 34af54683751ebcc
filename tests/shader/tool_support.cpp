#include "tool_support.hpp"

#include <cstring>
#include <fstream>
#include <stdexcept>

namespace mixforge::test {

namespace fs = std::filesystem;

ScratchDir::ScratchDir(const std::string& tag) : TempDir(tag, fs::path(MIXFORGE_BINARY_DIR) / "test-scratch") {}

void write_text(const fs::path& p, const std::string& text) { write_file(p, text); }
std::string read_text(const fs::path& p) { return read_file(p); }

void write_words(const fs::path& p, const std::vector<std::uint32_t>& words) {
  std::ofstream out(p, std::ios::binary);
  out.write(reinterpret_cast<const char*>(words.data()), static_cast<std::streamsize>(words.size() * 4));
  if (!out) throw std::runtime_error("cannot write " + p.string());
}

std::vector<std::uint32_t> read_words(const fs::path& p) {
  const std::string bytes = read_file(p);
  std::vector<std::uint32_t> words(bytes.size() / 4);
  std::memcpy(words.data(), bytes.data(), words.size() * 4);
  return words;
}

}  // namespace mixforge::test
