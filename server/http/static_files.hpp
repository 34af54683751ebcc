#pragma once
// Static files of the dashboard folder (web/): GET only, no path traversal (".."
// segments, absolute paths and symlinks leading outside the folder answer 404).
#include <filesystem>
#include <optional>

#include "server/http/http_types.hpp"

namespace mixforge::server {

class StaticFiles {
 public:
  // A missing folder serves nothing (404s).
  explicit StaticFiles(std::filesystem::path root);
  Response serve(const Request& request) const;
  // The file a decoded URL path maps to, when it is a regular file inside the root.
  std::optional<std::filesystem::path> resolve(const std::string& path) const;

 private:
  std::filesystem::path root_;  // canonical, empty when missing
};

std::string content_type_for(const std::filesystem::path& file);

}  // namespace mixforge::server
