#pragma once
// Island runs on Open MPI (`mpirun -np K mixforge evolve --islands`): each rank evolves
// its own pool (an island) with seed + rank; every migration_interval tournaments an
// island sends its best `migrants` programs to the next rank (ring, or a random other
// rank), and takes in what it receives through the normal acceptance (Run::immigrate).
// Rank 0 owns the store: its island is the stored run, and it records the hall-of-fame
// entries the other islands report, and their counters. MPI headers stay in the .cpp;
// without MPI at build time, mpi_available() is false and MpiSession throws.
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "evolver/run_config.hpp"
#include "evolver/run_types.hpp"

namespace mixforge { class Evaluator; }

namespace mixforge::evolver {

class RunManager;

struct IslandOptions {
  std::uint64_t migration_interval = 2000;  // tournaments between sends
  std::size_t migrants = 4;                 // programs per send
  bool random_topology = false;             // a random other rank each time, not the next
  double report_interval_s = 1;             // ranks > 0 report to rank 0 this often
  double rank_timeout_s = 30;               // rank 0: silence this long marks an island lost
};

class IslandError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

bool mpi_available();

// MPI_Init / MPI_Finalize, once per process.
class MpiSession {
 public:
  MpiSession(int* argc, char*** argv);  // IslandError when built without MPI
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
  int rank() const { return rank_; }
  int size() const { return size_; }

 private:
  int rank_ = 0, size_ = 1;
};

// Rank 0: drives the manager's active run `run_id` (created and started by the caller)
// until it ends or *stop turns true (then stops it with a final checkpoint), then stops
// the other islands and returns every island's status. Ranks > 0: evolve a Run of
// `config` (seed + rank) with `evaluator` until rank 0 says stop (or their budget ends),
// and return their own status alone.
std::vector<IslandStatus> run_island(MpiSession& mpi, const IslandOptions& options, RunManager* manager,
                                     const std::string& run_id, const RunConfig& config,
                                     const Evaluator& evaluator, const std::atomic<bool>& stop);

}  // namespace mixforge::evolver
