#include "server/http/logging.hpp"

#include <stdexcept>
#include <vector>

#include <spdlog/logger.h>
#include <spdlog/sinks/rotating_file_sink.h>
#include <spdlog/sinks/stdout_sinks.h>

namespace mixforge::server {

namespace {
spdlog::level::level_enum to_spdlog(LogLevel l) {
  switch (l) {
    case LogLevel::trace: return spdlog::level::trace;
    case LogLevel::debug: return spdlog::level::debug;
    case LogLevel::info: return spdlog::level::info;
    case LogLevel::warn: return spdlog::level::warn;
    case LogLevel::error: return spdlog::level::err;
    case LogLevel::off: return spdlog::level::off;
  }
  return spdlog::level::info;
}

// A text-form value: bare when it is a plain token, else JSON-quoted (escapes included),
// so one event is always one line.
std::string text_value(const nlohmann::json& v) {
  if (!v.is_string()) return v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  const std::string& s = v.get_ref<const std::string&>();
  bool plain = !s.empty();
  for (unsigned char c : s)
    if (c <= ' ' || c == '"' || c == '=' || c == '\\' || c >= 0x7f) plain = false;
  return plain ? s : v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}
}  // namespace

std::optional<LogLevel> log_level_from_name(std::string_view n) {
  if (n == "trace") return LogLevel::trace;
  if (n == "debug") return LogLevel::debug;
  if (n == "info") return LogLevel::info;
  if (n == "warn" || n == "warning") return LogLevel::warn;
  if (n == "error") return LogLevel::error;
  if (n == "off") return LogLevel::off;
  return std::nullopt;
}

struct Log::Impl {
  LogFormat format;
  std::shared_ptr<spdlog::logger> logger;
};

Log::Log(const LogOptions& o) : impl_(std::make_unique<Impl>()) {
  impl_->format = o.format;
  std::vector<spdlog::sink_ptr> sinks;
  // The _mt sinks hold a mutex around each formatted line: lines never interleave.
  if (o.to_stderr) sinks.push_back(std::make_shared<spdlog::sinks::stderr_sink_mt>());
  if (o.file) {
    try {
      sinks.push_back(
          std::make_shared<spdlog::sinks::rotating_file_sink_mt>(o.file->string(), o.file_max_bytes, o.file_count));
    } catch (const std::exception& e) {
      throw std::runtime_error("cannot open log file " + o.file->string() + ": " + e.what());
    }
  }
  impl_->logger = std::make_shared<spdlog::logger>("mixforge", sinks.begin(), sinks.end());
  impl_->logger->set_level(to_spdlog(o.level));
  impl_->logger->flush_on(spdlog::level::info);
  // %v is the event rendered by write(): "name k=v ..." or the inside of a JSON object.
  impl_->logger->set_pattern(o.format == LogFormat::json ? R"({"ts":"%Y-%m-%dT%H:%M:%S.%eZ","level":"%l",%v})"
                                                         : "%Y-%m-%dT%H:%M:%S.%eZ %l %v",
                             spdlog::pattern_time_type::utc);
}

Log::~Log() {
  if (impl_ && impl_->logger) impl_->logger->flush();
}

bool Log::enabled(LogLevel level) const { return impl_->logger->should_log(to_spdlog(level)); }

void Log::write(LogLevel level, std::string_view event, const nlohmann::json& fields) {
  if (!enabled(level)) return;
  std::string line;
  if (impl_->format == LogFormat::json) {
    nlohmann::json o = nlohmann::json::object();
    o["event"] = std::string(event);
    if (fields.is_object())
      for (const auto& [k, v] : fields.items()) o[k] = v;
    line = o.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    line = line.substr(1, line.size() - 2);  // the pattern supplies the braces
  } else {
    line = std::string(event);
    if (fields.is_object())
      for (const auto& [k, v] : fields.items()) line += " " + k + "=" + text_value(v);
  }
  impl_->logger->log(to_spdlog(level), spdlog::string_view_t(line.data(), line.size()));
}

void Log::flush() { impl_->logger->flush(); }

}  // namespace mixforge::server
