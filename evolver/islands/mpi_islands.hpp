#pragma once
// Island runs on Open MPI (`mpirun -np K mixforge evolve --islands`): each rank evolves
// its own pool (an island) with seed + rank; every migration_interval tournaments an
// island sends its best `migrants` programs to the next rank (ring, or a random other
// rank), and takes in what it receives through the normal acceptance (Run::immigrate).
// Rank 0 owns the store: its island is the stored run, and it records the hall-of-fame
// entries the other islands report, their counters and their checkpoints. Messages are
// JSON text; the other ranks need no data directory. MPI headers stay in the .cpp;
// without MPI at build time, mpi_available() is false and MpiSession throws.
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "evolver/search/run_config.hpp"
#include "evolver/run/run_types.hpp"

namespace mixforge::avalanche {
class Evaluator;
}

namespace mixforge::evolver {

class RunManager;

struct IslandOptions {
  std::uint64_t migration_interval = 2000;  // tournaments between sends
  std::size_t migrants = 4;                 // programs per send
  bool random_topology = false;             // a random other rank each time, not the next
  double report_interval_s = 1;             // ranks > 0 report to rank 0 this often
  double rank_timeout_s = 30;               // rank 0: silence this long marks an island lost
  double checkpoint_interval_s = 5;         // ranks > 0 send their checkpoint this often
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
  // Every rank's machine (MPI_Get_processor_name), in rank order: exchanged once at start,
  // so rank 0 knows where each island runs even if that rank never reports.
  const std::vector<std::string>& hosts() const { return hosts_; }
  // Ends the whole job at once (MPI_Abort): Open MPI kills every rank, and mpirun exits with
  // `code`. For a rank that hangs, which MPI_Finalize would wait for forever; call it last,
  // with everything stored.
  [[noreturn]] void abort(int code);

 private:
  int rank_ = 0, size_ = 1;
  std::vector<std::string> hosts_;
};

// Rank 0's side of the islands: the other ranks evolve islands of one run at a time, the
// run being rank 0's active run. The other ranks' checkpoints come with their reports
// (every checkpoint_interval_s, and a final one when they stop) and are stored with the
// run (RunManager::set_island_checkpoint), so attaching to a run that has them restarts
// each island where it was. Only the thread that made the MpiSession may call it.
class IslandCoordinator {
 public:
  IslandCoordinator(MpiSession& mpi, IslandOptions options, RunManager& manager);
  ~IslandCoordinator();
  IslandCoordinator(const IslandCoordinator&) = delete;
  IslandCoordinator& operator=(const IslandCoordinator&) = delete;

  // Starts the other ranks' islands of the manager's active run: each from its stored
  // checkpoint when there is one, else fresh with seed + rank. budget: theirs, counted from
  // now (nullopt: until rank 0's island ends). Island counts carry on from the stored ones.
  void attach(const std::string& run_id, std::optional<Budget> budget);
  bool attached() const;
  const std::string& run_id() const;
  // One round: migration with rank 0's island, the others' reports (their bests into the
  // hall of fame, their checkpoints into the store, a silent one marked lost), the islands'
  // status stored about once a second. False once the run is no longer running here
  // (ended, stopping, paused, or the manager shut down).
  bool step();
  // Waits until every other island has ended by itself (its budget spent) or is lost
  // (silent for the rank timeout), or *stop turns true; for islands attached with a budget.
  void await_budgets(const std::atomic<bool>& stop);
  // Stops the other islands and waits for their final reports and checkpoints (each at
  // most the rank timeout), stores them, and returns every island's status.
  std::vector<IslandStatus> detach();
  // Tells every other rank to exit; call once, last. Returns the ranks that did not answer
  // within the rank timeout (dismiss_workers).
  std::vector<int> shutdown();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Rank 0 of `evolve --islands`: attaches to the manager's active run `run_id`, drives it
// until it ends or *stop turns true (then stops it with a final checkpoint) and detaches.
// Returns every island's status; the caller reports it, then calls islands.shutdown().
// (Reporting first: when Open MPI ends the job, SIGTERM gives rank 0 about a second before
// SIGKILL, and shutdown() may wait that long for a rank on a host that dropped off.)
std::vector<IslandStatus> drive_island_run(IslandCoordinator& islands, RunManager& manager,
                                           const std::string& run_id, std::optional<Budget> budget,
                                           const std::atomic<bool>& stop);
// Rank 0 of `serve --islands`: until *stop turns true the islands follow the oldest
// running run of the manager, one run at a time (pausing, stopping or the end of that run
// detaches them; resuming it attaches them again from their checkpoints). Then detaches
// and shuts the other ranks down; returns the ranks that did not answer (shutdown()).
std::vector<int> follow_running_runs(IslandCoordinator& islands, RunManager& manager, const std::atomic<bool>& stop);
// Rank 0: tells every other rank to exit and waits up to the rank timeout for each to
// answer that it is exiting (IslandCoordinator::shutdown does it; this is for a rank 0 that
// failed before it had a coordinator). Returns the ranks that did not answer: hung ones
// (stopped, deadlocked, on a machine that stalls), for which MPI_Finalize would wait forever.
std::vector<int> dismiss_workers(MpiSession& mpi, const IslandOptions& options);
// Ranks > 0: evolves the islands rank 0 starts here with `evaluator`, one after the other,
// until rank 0 says to exit (or *stop turns true and rank 0 stays silent for the rank
// timeout). Their runs exist only here: rank 0 stores what they report.
void island_worker(MpiSession& mpi, const IslandOptions& options, const avalanche::Evaluator& evaluator,
                   const std::atomic<bool>& stop);

}  // namespace mixforge::evolver
