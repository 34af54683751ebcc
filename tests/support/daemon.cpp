#include "support/daemon.hpp"
#include "support/process.hpp"

#include <chrono>
#include <cstring>
#include <stdexcept>
#include <thread>

namespace mixforge::test {

namespace fs = std::filesystem;

namespace {

// The port once the file holds it in full: the daemon writes "PORT\n" to a temporary file
// and renames it, so a file without its newline is not the daemon's.
int port_in(const fs::path& port_file) {
  std::error_code ec;
  if (!fs::exists(port_file, ec)) return 0;
  const std::string text = read_file_if_present(port_file);
  if (text.empty() || text.back() != '\n') return 0;
  try {
    const int port = std::stoi(text);
    return port > 0 ? port : 0;
  } catch (const std::exception&) {
    return 0;
  }
}
}  // namespace

std::string describe_exit(int code) {
  if (code > 128) {
    const int sig = code - 128;
    return "killed by signal " + std::to_string(sig) + " (" + ::strsignal(sig) + ")";
  }
  return "exit code " + std::to_string(code);
}

std::string file_tail(const fs::path& file, std::size_t bytes) {
  const std::string s = read_file_if_present(file);
  return s.size() <= bytes ? s : "..." + s.substr(s.size() - bytes);
}

ServeChild launch_serve(const fs::path& exe, const std::vector<std::string>& serve_args, const fs::path& port_file,
                        const fs::path& log, double timeout_s) {
  std::error_code ec;
  fs::remove(port_file, ec);
  std::vector<std::string> args = {exe.string(), "serve", "--port", "0", "--port-file", port_file.string()};
  args.insert(args.end(), serve_args.begin(), serve_args.end());
  SpawnOptions options;
  options.output_file = log;
  options.die_with_parent = true;
  Process proc(args, options);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (std::chrono::steady_clock::now() < deadline) {
    if (const auto code = proc.try_wait())
      throw std::runtime_error("mixforge serve exited during startup (" + describe_exit(*code) +
                               "): " + file_tail(log));
    if (const int port = port_in(port_file)) return {std::move(proc), port};
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  throw std::runtime_error("mixforge serve did not report its port within " + std::to_string(timeout_s) +
                           " s: " + file_tail(log));  // proc's destructor SIGKILLs and reaps it
}

}  // namespace mixforge::test
