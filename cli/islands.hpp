#pragma once
// `mixforge evolve --islands` under mpirun (evolver/islands/mpi_islands.hpp).
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "evolver/search/run_config.hpp"

namespace CLI { class App; }
namespace mixforge::server { struct DaemonOptions; }
namespace mixforge::evolver { struct IslandStatus; }

namespace mixforge::cli {

struct IslandCliOptions {
  std::uint64_t migration_interval = 2000;
  std::size_t migrants = 4;
  std::string topology = "ring";
  double rank_timeout_s = 30;
  double checkpoint_interval_s = 5;
  // The migration flags given on the command line (a resumed run keeps its own settings,
  // and refuses different ones).
  std::vector<std::string> migration_flags;
};

// mpirun's exit code when an island run ended with a rank that hung (it stopped answering
// and did not exit): the run is stored and reported without that island, and rank 0 ended
// the job with MPI_Abort, since MPI_Finalize would wait for the hung rank forever.
constexpr int hung_rank_exit_code = 3;

void add_island_options(CLI::App* command, IslandCliOptions* options);
// The islands table (host, counters, migrants, bests) of an island run.
void print_islands(std::FILE* out, const std::vector<evolver::IslandStatus>& islands);
// "migration every N tournaments, M migrants, ring|random"
std::string describe_migration(const evolver::MigrationConfig& migration);
// `evolve --islands`. Every rank calls this; rank 0 creates the run in data_dir (or, with
// resume_id, resumes that island run: every rank from its stored checkpoint, for `extra`
// when given) and prints the outcome.
void run_islands(const evolver::RunConfig& config, const IslandCliOptions& options, const std::string& data_dir,
                 const std::string& device, bool interpreter, bool json, const std::string& resume_id = {},
                 std::optional<evolver::Budget> extra = std::nullopt);
// `serve --islands`. Every rank calls this; rank 0 serves the daemon, and the other ranks'
// islands follow its oldest running run. Returns the daemon's exit status.
int serve_islands(const server::DaemonOptions& daemon, const IslandCliOptions& options, const std::string& device,
                  bool interpreter);

}  // namespace mixforge::cli
