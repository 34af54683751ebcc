// mixforge serve: the HTTP daemon (server/daemon.hpp). Runs until SIGTERM/SIGINT.
#include <CLI/CLI.hpp>

#include "cli/commands.hpp"
#include "cli/device_option.hpp"
#include "cli/islands.hpp"
#include "server/daemon.hpp"

namespace mixforge::cli {

void add_serve_command(CLI::App& app) {
  auto opts = std::make_shared<server::DaemonOptions>();
  auto port = std::make_shared<int>(8080);
  auto web = std::make_shared<std::string>();
  auto token = std::make_shared<std::string>();
  auto port_file = std::make_shared<std::string>();
  auto log_level = std::make_shared<std::string>("info");
  auto log_format = std::make_shared<std::string>("text");
  auto log_file = std::make_shared<std::string>();
  CLI::App* cmd =
      app.add_subcommand("serve",
                         "Run the HTTP daemon: REST API under /api/v1, live events, metrics (see docs/http-api.md)");
  cmd->add_option("--bind", opts->bind, "Address to listen on (non-loopback needs --token-file)")
      ->capture_default_str();
  cmd->add_option("--port", *port, "TCP port (0: any free port; see --port-file)")
      ->check(CLI::Range(0, 65535))
      ->capture_default_str();
  cmd->add_option("--data", opts->data_dir, "Data directory (SQLite store)")->capture_default_str();
  cmd->add_option("--token-file", *token,
                  "Bearer token for POST/DELETE; created (mode 0600) with a fresh token when missing");
  cmd->add_option("--max-runs", opts->limits.max_active_runs, "Most runs active at once (429 beyond)")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  cmd->add_option("--port-file", *port_file, "Write the bound port to this file once listening");
  cmd->add_option("--web", *web, "Dashboard folder served at / (default: the installed web/ folder)");
  cmd->add_option("--max-body", opts->limits.max_body_bytes, "Largest request body in bytes (413 beyond)")
      ->check(CLI::Range(1024, 1 << 30))
      ->capture_default_str();
  cmd->add_option("--max-evaluations", opts->limits.max_concurrent_evaluations,
                  "POST /evaluate requests scored at once (429 beyond)")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  cmd->add_option("--max-queued-exact", opts->limits.max_queued_exact,
                  "Exact evaluations allowed to wait for a slot (429 beyond)")
      ->check(CLI::Range(0, 1000))
      ->capture_default_str();
  cmd->add_option("--max-sse-clients", opts->limits.max_sse_clients, "Event-stream clients at once (429 beyond)")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  cmd->add_option("--max-bakes", opts->bakes.max_running, "Bakes running at once (POST /bakes; more wait)")
      ->check(CLI::Range(1, 16))
      ->capture_default_str();
  cmd->add_option("--max-queued-bakes", opts->bakes.max_queued, "Bakes allowed to wait (429 beyond)")
      ->check(CLI::Range(0, 1000))
      ->capture_default_str();
  cmd->add_option("--bake-threads", opts->bakes.bake_threads,
                  "Threads one bake traces on (0: all cores but one, so evolution keeps a core)")
      ->check(CLI::Range(0, 1024))
      ->capture_default_str();
  cmd->add_option("--max-bake-spp", opts->bakes.max_spp, "Largest spp a bake may ask for (422 beyond)")
      ->check(CLI::Range(1, 1 << 20))
      ->capture_default_str();
  cmd->add_option("--page-cache", opts->limits.page_cache_s,
                  "Seconds a pool / best page of a run may be reused (0: off)")
      ->check(CLI::Range(0.0, 60.0))
      ->capture_default_str();
  cmd->add_option("--io-threads", opts->io_threads, "HTTP I/O threads")->check(CLI::Range(1, 64))->capture_default_str();
  cmd->add_option("--read-threads", opts->read_threads, "Threads for store reads (pool, best, hall of fame, runs)")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  cmd->add_option("--control-threads", opts->control_threads,
                  "Threads for run control and export (never shared with scoring)")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  cmd->add_option("--allowed-host", opts->allowed_hosts,
                  "Host name the daemon answers for besides localhost and the bind address (repeatable; "
                  "other Host headers get 421: DNS rebinding)")
      ->take_all();
  cmd->add_option("--cors-origin", opts->cors_origins,
                  "Origin allowed to call the API from a browser page, e.g. https://tools.example "
                  "(repeatable; CORS is off by default)")
      ->take_all();
  cmd->add_option("--sse-keepalive", opts->sse_keepalive_s, "Seconds between keep-alive comments on event streams")
      ->check(CLI::Range(0.001, 3600.0))
      ->capture_default_str();
  cmd->add_option("--sse-write-timeout", opts->sse_write_timeout_s,
                  "Seconds an event-stream write may stall before the client is dropped")
      ->check(CLI::Range(0.01, 3600.0))
      ->capture_default_str();
  cmd->add_option("--log-level", *log_level, "trace, debug, info, warn, error or off")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "off"}))
      ->capture_default_str();
  cmd->add_option("--log-format", *log_format, "text, or json (one JSON object per line)")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  cmd->add_option("--log-file", *log_file,
                  "Also log to this rotating file (10 MiB x 3; a relative path is inside the data directory)");
  cmd->add_option("--checkpoint-interval", opts->checkpoint_interval_s, "Seconds between run checkpoints")
      ->check(CLI::Range(0.05, 3600.0))
      ->capture_default_str();
  cmd->add_flag("--no-default-run", [opts](std::int64_t) { opts->default_run = false; },
                "Do not start a run on first start with an empty data directory");
  auto device = std::make_shared<std::string>();
  add_device_option(cmd, device.get());
  cmd->add_flag("--interpreter", opts->interpreter_only,
                "Score without the JIT (the interpreter hashes; slower; for tests)");
  auto islands = std::make_shared<bool>(false);
  auto island = std::make_shared<IslandCliOptions>();
  cmd->add_flag("--islands", *islands,
                "Under mpirun -np K: rank 0 serves, and the other ranks evolve islands of its oldest running run "
                "(see docs/gpu-and-islands.md)");
  add_island_options(cmd, island.get());
  cmd->callback([opts, port, web, token, port_file, log_level, log_format, log_file, device, islands, island] {
    opts->device = avalanche::parse_device(*device);
    opts->log.level = *server::log_level_from_name(*log_level);
    opts->log.format = *log_format == "json" ? server::LogFormat::json : server::LogFormat::text;
    if (!log_file->empty()) opts->log.file = *log_file;
    opts->port = static_cast<unsigned short>(*port);
    if (!web->empty()) opts->web_dir = *web;
    if (!token->empty()) opts->token_file = *token;
    if (!port_file->empty()) opts->port_file = *port_file;
    try {
      const int rc = *islands ? serve_islands(*opts, *island, *device, opts->interpreter_only)
                              : server::run_daemon(*opts);
      if (rc != 0) throw ExitStatus{rc};
    } catch (const server::DaemonConfigError& e) {
      throw UsageError(e.what());
    }
  });
}

}  // namespace mixforge::cli
