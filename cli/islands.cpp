#include "cli/islands.hpp"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <iostream>

#include "avalanche/evaluator.hpp"
#include "cli/commands.hpp"
#include "cli/device_option.hpp"
#include "evolver/mpi_islands.hpp"
#include "evolver/run_manager.hpp"

namespace mixforge::cli {
namespace {

std::atomic<bool> g_stop{false};  // set by SIGINT/SIGTERM (mpirun forwards them)

extern "C" void on_island_signal(int) { g_stop.store(true); }

void print_islands(const std::vector<evolver::IslandStatus>& islands) {
  std::fprintf(stderr, "%-6s %12s %10s %10s %10s %8s  %s\n", "island", "tournaments", "sent", "received", "accepted",
               "bests", "best chi2");
  for (const auto& s : islands) {
    char best[64] = "-";
    if (s.best) std::snprintf(best, sizeof best, "%.6g%s", s.best->chi2, s.best->exact ? " exact" : " est");
    std::fprintf(stderr, "%-6d %12llu %10llu %10llu %10llu %8llu  %s%s\n", s.rank,
                 static_cast<unsigned long long>(s.counters.tournaments),
                 static_cast<unsigned long long>(s.migrants_sent),
                 static_cast<unsigned long long>(s.migrants_received),
                 static_cast<unsigned long long>(s.migrants_accepted),
                 static_cast<unsigned long long>(s.bests_reported), best, s.lost ? "  (lost)" : "");
  }
}

nlohmann::json islands_json(const std::vector<evolver::IslandStatus>& islands) {
  nlohmann::json a = nlohmann::json::array();
  for (const auto& s : islands) a.push_back(evolver::to_json(s));
  return a;
}

}  // namespace

void add_island_options(CLI::App* cmd, IslandCliOptions* o) {
  cmd->add_option("--migration-interval", o->migration_interval, "Islands: tournaments between migrations")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 40))
      ->capture_default_str();
  cmd->add_option("--migrants", o->migrants, "Islands: best programs sent per migration")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1000}))
      ->capture_default_str();
  cmd->add_option("--topology", o->topology, "Islands: ring (to the next rank) or random (any other rank)")
      ->check(CLI::IsMember({"ring", "random"}))
      ->capture_default_str();
  cmd->add_option("--rank-timeout", o->rank_timeout_s,
                  "Islands: seconds of silence after which rank 0 counts an island as lost")
      ->check(CLI::Range(1.0, 3600.0))
      ->capture_default_str();
}

void run_islands(const evolver::RunConfig& config, const IslandCliOptions& o, const std::string& data_dir,
                 const std::string& device, bool interpreter, bool json) {
  std::unique_ptr<evolver::MpiSession> mpi;
  try {
    mpi = std::make_unique<evolver::MpiSession>(nullptr, nullptr);
  } catch (const evolver::IslandError& e) {
    throw UsageError(std::string("--islands: ") + e.what());
  }
  std::signal(SIGINT, on_island_signal);
  std::signal(SIGTERM, on_island_signal);
  evolver::IslandOptions io;
  io.migration_interval = o.migration_interval;
  io.migrants = o.migrants;
  io.random_topology = o.topology == "random";
  io.rank_timeout_s = o.rank_timeout_s;
  const DeviceSelection dev = interpreter ? DeviceSelection{} : open_device(device);
  if (mpi->rank() == 0) {
    evolver::RunManager::Options mo;
    mo.data_dir = data_dir;
    mo.interpreter_only = interpreter;
    mo.gpu = dev.gpu;
    evolver::RunManager manager(mo);
    evolver::RunConfig c = config;
    if (c.name.empty()) c.name = "islands x" + std::to_string(mpi->size());
    const std::string id = manager.create(c, true);
    std::cout << "run_id: " << id << std::endl;
    std::cerr << "mixforge: " << mpi->size() << " islands, migration every " << o.migration_interval
              << " tournaments (" << o.topology << ")\n";
    Evaluator unused(nullptr);
    const auto islands = evolver::run_island(*mpi, io, &manager, id, c, unused, g_stop);
    print_islands(islands);
    if (json) {
      const evolver::RunSummary s = manager.get(id);
      nlohmann::json j{{"run_id", id},
                       {"state", std::string(evolver::state_name(s.state))},
                       {"best", s.best ? evolver::to_json(*s.best) : nlohmann::json(nullptr)},
                       {"islands", islands_json(islands)}};
      std::cout << j.dump() << std::endl;
    }
  } else {
    auto evaluator = interpreter ? std::make_unique<Evaluator>(nullptr) : Evaluator::with_own_engine();
    evaluator->use_gpu(dev.gpu);
    evolver::run_island(*mpi, io, nullptr, "", config, *evaluator, g_stop);
  }
}

}  // namespace mixforge::cli
