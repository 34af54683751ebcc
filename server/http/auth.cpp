#include "server/http/auth.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <fstream>
#include <random>
#include <stdexcept>

namespace mixforge::server {

bool is_ipv4_literal(const std::string& h) {
  int dots = 0, digits = 0;
  for (char c : h) {
    if (c == '.') {
      if (digits == 0) return false;
      ++dots;
      digits = 0;
    } else if (c >= '0' && c <= '9') {
      if (++digits > 3) return false;
    } else {
      return false;
    }
  }
  return dots == 3 && digits > 0;
}

bool is_loopback_address(const std::string& a) {
  // Only a literal: "127.0.0.1.example.com" is a name, resolved wherever its owner says.
  return a == "localhost" || a == "::1" || a == "[::1]" || (a.rfind("127.", 0) == 0 && is_ipv4_literal(a));
}

std::string load_or_create_token(const std::filesystem::path& file) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::exists(file, ec)) {
    std::random_device rd;  // the kernel's CSPRNG on Linux
    static const char hex[] = "0123456789abcdef";
    std::string token;
    for (int i = 0; i < 32; ++i) {
      const unsigned v = rd() & 0xff;
      token += hex[v >> 4];
      token += hex[v & 15];
    }
    if (file.has_parent_path()) fs::create_directories(file.parent_path(), ec);
    const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0600);
    if (fd < 0) throw std::runtime_error("cannot create token file " + file.string());
    const std::string line = token + "\n";
    const bool ok = ::write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size());
    ::close(fd);
    if (!ok) throw std::runtime_error("cannot write token file " + file.string());
    return token;
  }
  struct stat st {};
  if (::stat(file.c_str(), &st) == 0 && (st.st_mode & 077))
    throw std::runtime_error("token file " + file.string() + " is readable by group or others; chmod 600 it");
  std::ifstream in(file);
  if (!in) throw std::runtime_error("cannot read token file " + file.string());
  std::string token;
  std::getline(in, token);
  while (!token.empty() && (token.back() == '\r' || token.back() == ' ')) token.pop_back();
  if (token.size() < 16)
    throw std::runtime_error("token file " + file.string() + " holds no token of at least 16 characters");
  return token;
}

bool BearerAuth::check(const std::string& authorization) const {
  if (!token_) return true;
  // RFC 9110 11.1: the scheme's name is case-insensitive.
  const std::string prefix = "bearer ";
  if (authorization.size() < prefix.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(authorization[i])) != prefix[i]) return false;
  const std::string given = authorization.substr(prefix.size());
  // Constant time in the token's content (the length is not secret).
  unsigned diff = given.size() ^ token_->size();
  for (std::size_t i = 0; i < token_->size(); ++i)
    diff |= static_cast<unsigned char>(token_->at(i)) ^ static_cast<unsigned char>(i < given.size() ? given[i] : 0);
  return diff == 0;
}

}  // namespace mixforge::server
