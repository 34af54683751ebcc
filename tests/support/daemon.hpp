#pragma once
// Launches the real `mixforge serve` as a child process on an ephemeral loopback port
// (--port 0 --port-file), the one launcher of the end-to-end tests (tests/server's Daemon,
// tests/contract's negative test through it) and of the chaos driver (tests/chaos).
#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "support/process.hpp"

namespace mixforge::test {

struct ServeChild {
  Process process;  // SIGKILLed and reaped when destroyed while running
  int port = 0;     // the port the daemon listens on
};

// Spawns `exe serve --port 0 --port-file PORT_FILE SERVE_ARGS...` with stdout and stderr in
// `log`, killed with this process (die_with_parent: a CTest timeout kills only the driver),
// and waits up to timeout_s until the daemon has written its port ("PORT\n", renamed into
// place). Throws std::runtime_error with the end of the log when
// the daemon exits during startup (saying how) or stays silent (then it is killed).
ServeChild launch_serve(const std::filesystem::path& exe, const std::vector<std::string>& serve_args,
                        const std::filesystem::path& port_file, const std::filesystem::path& log,
                        double timeout_s = 60);

// The end of a file: its last `bytes` ("..." in front when cut); empty while it does not exist.
std::string file_tail(const std::filesystem::path& file, std::size_t bytes = 4000);

// How a child ended, from an exit status as Process reports it (128 + signal number for a
// signal): "exit code N" or "killed by signal N (name)".
std::string describe_exit(int code);

}  // namespace mixforge::test
