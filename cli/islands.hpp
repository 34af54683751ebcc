#pragma once
// `mixforge evolve --islands` under mpirun (evolver/mpi_islands.hpp).
#include <cstdint>
#include <string>

#include "evolver/run_config.hpp"

namespace CLI { class App; }

namespace mixforge::cli {

struct IslandCliOptions {
  std::uint64_t migration_interval = 2000;
  std::size_t migrants = 4;
  std::string topology = "ring";
  double rank_timeout_s = 30;
};

void add_island_options(CLI::App* command, IslandCliOptions* options);
// Every rank calls this; rank 0 creates the run in data_dir and prints the outcome.
void run_islands(const evolver::RunConfig& config, const IslandCliOptions& options, const std::string& data_dir,
                 const std::string& device, bool interpreter, bool json);

}  // namespace mixforge::cli
