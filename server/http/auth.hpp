#pragma once
// Bearer-token authentication for mutating endpoints on non-loopback binds.
#include <filesystem>
#include <optional>
#include <string>

namespace mixforge::server {

// True for a dotted-quad literal ("10.0.0.5"; not a name that merely starts like one).
bool is_ipv4_literal(const std::string& host);

// True for 127.0.0.0/8 literals, ::1 and "localhost".
bool is_loopback_address(const std::string& address);

// Reads the token from the file; when the file does not exist, creates it (mode 0600)
// with a fresh random token. Throws std::runtime_error when the file is empty, too
// readable (group/other bits set) or cannot be written.
std::string load_or_create_token(const std::filesystem::path& file);

class BearerAuth {
 public:
  // No token: authentication is off (loopback binds).
  explicit BearerAuth(std::optional<std::string> token) : token_(std::move(token)) {}
  bool enabled() const { return token_.has_value(); }
  // The Authorization header value; compares in constant time.
  bool check(const std::string& authorization) const;

 private:
  std::optional<std::string> token_;
};

}  // namespace mixforge::server
