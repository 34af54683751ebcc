#include "server/http/static_files.hpp"

#include <fstream>
#include <sstream>

#include "server/http/problem.hpp"

namespace mixforge::server {

StaticFiles::StaticFiles(std::filesystem::path root) {
  std::error_code ec;
  auto canon = std::filesystem::canonical(root, ec);
  if (!ec && std::filesystem::is_directory(canon)) root_ = canon;
}

std::string content_type_for(const std::filesystem::path& file) {
  const std::string ext = file.extension().string();
  if (ext == ".html" || ext == ".htm") return "text/html; charset=utf-8";
  if (ext == ".js" || ext == ".mjs") return "text/javascript; charset=utf-8";
  if (ext == ".css") return "text/css; charset=utf-8";
  if (ext == ".json") return "application/json";
  if (ext == ".svg") return "image/svg+xml";
  if (ext == ".png") return "image/png";
  if (ext == ".ico") return "image/x-icon";
  if (ext == ".wasm") return "application/wasm";
  if (ext == ".txt" || ext == ".md") return "text/plain; charset=utf-8";
  return "application/octet-stream";
}

std::optional<std::filesystem::path> StaticFiles::resolve(const std::string& path) const {
  namespace fs = std::filesystem;
  if (root_.empty() || path.empty() || path.front() != '/') return std::nullopt;
  if (path.find('\0') != std::string::npos || path.find('\\') != std::string::npos) return std::nullopt;
  // Reject any ".." or "." segment outright rather than normalising it away.
  std::string rel;
  std::size_t i = 1;
  while (i <= path.size()) {
    std::size_t j = path.find('/', i);
    if (j == std::string::npos) j = path.size();
    const std::string seg = path.substr(i, j - i);
    if (seg == ".." || seg == ".") return std::nullopt;
    if (!seg.empty()) rel += (rel.empty() ? "" : "/") + seg;
    i = j + 1;
  }
  fs::path p = rel.empty() ? root_ : root_ / rel;
  std::error_code ec;
  if (fs::is_directory(p, ec)) p /= "index.html";
  auto canon = fs::canonical(p, ec);
  if (ec || !fs::is_regular_file(canon, ec)) return std::nullopt;
  // Symlinks must not lead out of the folder.
  const auto rs = root_.string(), cs = canon.string();
  if (cs.size() <= rs.size() || cs.compare(0, rs.size(), rs) != 0 || cs[rs.size()] != '/') return std::nullopt;
  return canon;
}

Response StaticFiles::serve(const Request& request) const {
  auto file = resolve(request.path);
  if (!file) throw HttpError(404, "not-found", "no resource at " + request.path);
  std::ifstream in(*file, std::ios::binary);
  if (!in) throw HttpError(404, "not-found", "no resource at " + request.path);
  std::ostringstream ss;
  ss << in.rdbuf();
  Response r = Response::text(200, ss.str(), content_type_for(*file));
  r.headers.emplace_back("Cache-Control", "no-cache");
  r.headers.emplace_back("X-Content-Type-Options", "nosniff");
  return r;
}

}  // namespace mixforge::server
