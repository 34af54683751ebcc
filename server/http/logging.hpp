#pragma once
// The daemon's log: spdlog underneath (only logging.cpp sees it), one line per event,
// written whole even when many threads log at once. An event is a name and fields:
//   text: 2026-11-23T19:40:00.123Z info http.request method=GET route=/api/v1/runs status=200
//   json: {"ts":"2026-11-23T19:40:00.123Z","level":"info","event":"http.request","method":"GET",...}
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace mixforge::server {

enum class LogLevel { trace, debug, info, warn, error, off };
enum class LogFormat { text, json };

// nullopt for an unknown name ("trace", "debug", "info", "warn", "error", "off").
std::optional<LogLevel> log_level_from_name(std::string_view name);

struct LogOptions {
  LogLevel level = LogLevel::info;
  LogFormat format = LogFormat::text;
  bool to_stderr = true;
  // Also a rotating file (file_max_bytes each, file_count kept) when set.
  std::optional<std::filesystem::path> file;
  std::size_t file_max_bytes = 10u << 20;
  std::size_t file_count = 3;
};

class Log {
 public:
  // Throws std::runtime_error naming the file when the log file cannot be opened.
  explicit Log(const LogOptions& options);
  ~Log();
  Log(const Log&) = delete;
  Log& operator=(const Log&) = delete;

  bool enabled(LogLevel level) const;
  // fields: a JSON object (or null); strings are quoted in text form when they contain
  // spaces, quotes or control characters.
  void write(LogLevel level, std::string_view event, const nlohmann::json& fields = nullptr);
  void info(std::string_view event, const nlohmann::json& fields = nullptr) { write(LogLevel::info, event, fields); }
  void warn(std::string_view event, const nlohmann::json& fields = nullptr) { write(LogLevel::warn, event, fields); }
  void error(std::string_view event, const nlohmann::json& fields = nullptr) { write(LogLevel::error, event, fields); }
  void debug(std::string_view event, const nlohmann::json& fields = nullptr) { write(LogLevel::debug, event, fields); }
  void flush();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace mixforge::server
