#include "cli/islands.hpp"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "avalanche/evaluator.hpp"
#include "cli/commands.hpp"
#include "cli/device_option.hpp"
#include "evolver/islands/mpi_islands.hpp"
#include "evolver/manager/run_manager.hpp"
#include "evolver/run/run_types_json.hpp"
#include "server/daemon.hpp"

#include <thread>

namespace mixforge::cli {
namespace {

std::atomic<bool> g_stop{false};  // set by SIGINT/SIGTERM (mpirun forwards them)

extern "C" void on_island_signal(int) { g_stop.store(true); }

// The migration settings the flags give (their defaults where not given).
evolver::MigrationConfig migration_of(const evolver::IslandOptions& io) {
  return {io.migration_interval, io.migrants, io.random_topology};
}

// m with the value of one migration flag given on the command line.
evolver::MigrationConfig with_flag(evolver::MigrationConfig m, const std::string& flag,
                                   const evolver::IslandOptions& io) {
  if (flag == "--migration-interval") m.interval = io.migration_interval;
  if (flag == "--migrants") m.migrants = io.migrants;
  if (flag == "--topology") m.random_topology = io.random_topology;
  return m;
}

nlohmann::json islands_json(const std::vector<evolver::IslandStatus>& islands) {
  nlohmann::json a = nlohmann::json::array();
  for (const auto& s : islands) a.push_back(evolver::to_json(s));
  return a;
}

}  // namespace

void print_islands(std::FILE* out, const std::vector<evolver::IslandStatus>& islands) {
  std::fprintf(out, "%-6s %-16s %12s %10s %10s %10s %8s  %s\n", "island", "host", "tournaments", "sent",
               "received", "accepted", "bests", "best chi2");
  for (const auto& s : islands) {
    char best[64] = "-";
    if (s.best) std::snprintf(best, sizeof best, "%.6g%s", s.best->chi2, s.best->exact ? " exact" : " est");
    std::fprintf(out, "%-6d %-16s %12llu %10llu %10llu %10llu %8llu  %s%s\n", s.rank,
                 s.host.empty() ? "-" : s.host.c_str(),
                 static_cast<unsigned long long>(s.counters.tournaments),
                 static_cast<unsigned long long>(s.migrants_sent),
                 static_cast<unsigned long long>(s.migrants_received),
                 static_cast<unsigned long long>(s.migrants_accepted),
                 static_cast<unsigned long long>(s.bests_reported), best, s.lost ? "  (lost)" : "");
  }
}

std::string describe_migration(const evolver::MigrationConfig& m) {
  return "migration every " + std::to_string(m.interval) + " tournaments, " + std::to_string(m.migrants) +
         " migrants, " + (m.random_topology ? "random" : "ring");
}

void add_island_options(CLI::App* cmd, IslandCliOptions* o) {
  auto given = [o](const char* flag) {
    return [o, flag](const std::string&) { o->migration_flags.emplace_back(flag); };
  };
  cmd->add_option("--migration-interval", o->migration_interval,
                  "Islands: tournaments between migrations (kept with the run)")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 40))
      ->each(given("--migration-interval"))
      ->capture_default_str();
  cmd->add_option("--migrants", o->migrants, "Islands: best programs sent per migration (kept with the run)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1000}))
      ->each(given("--migrants"))
      ->capture_default_str();
  cmd->add_option("--topology", o->topology,
                  "Islands: ring (to the next rank) or random (any other rank) (kept with the run)")
      ->check(CLI::IsMember({"ring", "random"}))
      ->each(given("--topology"))
      ->capture_default_str();
  cmd->add_option("--rank-timeout", o->rank_timeout_s,
                  "Islands: seconds of silence after which rank 0 counts an island as lost")
      ->check(CLI::Range(1.0, 3600.0))
      ->capture_default_str();
  cmd->add_option("--island-checkpoint-interval", o->checkpoint_interval_s,
                  "Islands: seconds between the checkpoints the other ranks send to rank 0")
      ->check(CLI::Range(0.05, 3600.0))
      ->capture_default_str();
}

namespace {

evolver::IslandOptions island_options(const IslandCliOptions& o) {
  evolver::IslandOptions io;
  io.migration_interval = o.migration_interval;
  io.migrants = o.migrants;
  io.random_topology = o.topology == "random";
  io.rank_timeout_s = o.rank_timeout_s;
  io.checkpoint_interval_s = o.checkpoint_interval_s;
  return io;
}

// Rank 0, last, after the other ranks were told to exit: MPI_Finalize waits for every rank
// of the job, so with a rank that never answered (hung: stopped, deadlocked, on a stalled
// machine) it would wait forever, and so would mpirun. Open MPI 4.1 cannot drop one rank
// from a job (an abort on any communicator ends them all), so rank 0 ends the whole job
// with MPI_Abort: Open MPI kills every rank, the hung one too, and mpirun exits with
// `code` after its own MPI_ABORT notice. Everything is stored by then, the ranks that
// answered have ended their islands, and the hung rank's island keeps its last checkpoint.
void end_job_if_hung(evolver::MpiSession& mpi, const evolver::IslandOptions& io, const std::vector<int>& silent,
                     int code) {
  if (silent.empty()) return;
  std::string who;
  for (int r : silent) {
    if (!who.empty()) who += ", ";
    who += "island " + std::to_string(r) + " (host " + mpi.hosts()[static_cast<std::size_t>(r)] + ")";
  }
  std::cout.flush();
  std::fprintf(stderr,
               "mixforge: %s has not answered for --rank-timeout %g s: the run is stored without it. MPI_Finalize "
               "would wait for it forever, so rank 0 ends the job with MPI_Abort (mpirun exits with code %d)\n",
               who.c_str(), io.rank_timeout_s, code);
  std::fflush(nullptr);
  mpi.abort(code);
}

// Rank 0 failed, and the other ranks were told to exit: rethrows the failure; with a rank
// that did not answer, says the error here (as main would) and ends the job with the exit
// code it would have had (end_job_if_hung).
[[noreturn]] void fail(evolver::MpiSession& mpi, const evolver::IslandOptions& io, const std::vector<int>& silent,
                       const std::exception_ptr& failure) {
  if (silent.empty()) std::rethrow_exception(failure);
  int code = 1;
  try {
    std::rethrow_exception(failure);
  } catch (const UsageError& e) {
    std::fprintf(stderr, "mixforge: %s\n", e.what());
    code = 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mixforge: error: %s\n", e.what());
  } catch (...) {
  }
  end_job_if_hung(mpi, io, silent, code);
  std::rethrow_exception(failure);  // not reached
}

std::unique_ptr<evolver::MpiSession> start_mpi(const char* command) {
  try {
    return std::make_unique<evolver::MpiSession>(nullptr, nullptr);
  } catch (const evolver::IslandError& e) {
    throw UsageError(std::string(command) + " --islands: " + e.what());
  }
}

// Ranks > 0 of both commands: islands of whatever run rank 0 starts here.
void work_islands(evolver::MpiSession& mpi, const evolver::IslandOptions& io, const std::string& device,
                  bool interpreter) {
  std::signal(SIGINT, on_island_signal);
  std::signal(SIGTERM, on_island_signal);
  const avalanche::DeviceSelection dev = interpreter ? avalanche::DeviceSelection{} : open_device(device);
  auto evaluator =
      interpreter ? std::make_unique<avalanche::Evaluator>(nullptr) : avalanche::Evaluator::with_own_engine();
  evaluator->use_device(dev);
  evolver::island_worker(mpi, io, *evaluator, g_stop);
}

}  // namespace

void run_islands(const evolver::RunConfig& config, const IslandCliOptions& o, const std::string& data_dir,
                 const std::string& device, bool interpreter, bool json, const std::string& resume_id,
                 std::optional<evolver::Budget> extra) {
  auto mpi = start_mpi("evolve");
  const evolver::IslandOptions io = island_options(o);
  if (mpi->rank() != 0) {
    work_islands(*mpi, io, device, interpreter);
    return;
  }
  std::signal(SIGINT, on_island_signal);
  std::signal(SIGTERM, on_island_signal);
  evolver::RunManager::Options mo;
  mo.data_dir = data_dir;
  mo.interpreter_only = interpreter;
  std::unique_ptr<evolver::RunManager> manager;
  std::unique_ptr<evolver::IslandCoordinator> islands;
  std::string id;
  std::optional<evolver::Budget> budget;
  try {
    if (!interpreter) mo.device = open_device(device);
    manager = std::make_unique<evolver::RunManager>(mo);
    islands = std::make_unique<evolver::IslandCoordinator>(*mpi, io, *manager);
    if (resume_id.empty()) {
      evolver::RunConfig c = config;
      if (c.name.empty()) c.name = "islands x" + std::to_string(mpi->size());
      // Kept with the run: a --config file's settings, where the flags do not override them.
      evolver::MigrationConfig m = c.migration.value_or(migration_of(io));
      for (const std::string& flag : o.migration_flags) m = with_flag(m, flag, io);
      c.migration = m;
      id = manager->create(c, true);
      budget = c.budget;
    } else {
      try {
        // The same flags again are fine (the first command line, repeated with --resume).
        if (const auto kept = manager->get(resume_id).config.migration)
          for (const std::string& flag : o.migration_flags)
            if (with_flag(*kept, flag, io) != *kept)
              throw UsageError(flag + ": island run " + resume_id +
                               " keeps the migration settings it was started with (" + describe_migration(*kept) +
                               "); resume it with those or without --migration-interval, --migrants and --topology");
        manager->resume(resume_id, extra);
      } catch (const evolver::RunNotFound& e) {
        throw UsageError(std::string("--resume: ") + e.what());
      } catch (const evolver::RunStateError& e) {
        throw UsageError(std::string("--resume: ") + e.what());
      }
      id = resume_id;
      budget = extra ? *extra : manager->get(id).config.budget;
    }
  } catch (...) {
    // The other ranks wait for an island to evolve: tell them there is none.
    fail(*mpi, io, evolver::dismiss_workers(*mpi, io), std::current_exception());
  }
  std::cout << "run_id: " << id << std::endl;
  const evolver::MigrationConfig used = manager->get(id).config.migration.value_or(migration_of(io));
  std::cerr << "mixforge: " << mpi->size() << " islands, " << describe_migration(used)
            << (resume_id.empty() ? "" : ", resumed") << "\n";
  const auto statuses = evolver::drive_island_run(*islands, *manager, id, budget, g_stop);
  // The outcome is reported before the other ranks are told to exit (see drive_island_run).
  std::exception_ptr failure;
  try {
    print_islands(stderr, statuses);
    if (json) {
      const evolver::RunSummary s = manager->get(id);
      nlohmann::json j{{"run_id", id},
                       {"state", std::string(evolver::state_name(s.state))},
                       {"best", s.best ? evolver::to_json(*s.best) : nlohmann::json(nullptr)},
                       {"islands", islands_json(statuses)}};
      std::cout << j.dump() << std::endl;
    }
  } catch (...) {
    failure = std::current_exception();
  }
  const std::vector<int> silent = islands->shutdown();
  islands.reset();
  manager.reset();  // the store closed before the job may end
  if (failure) fail(*mpi, io, silent, failure);
  end_job_if_hung(*mpi, io, silent, hung_rank_exit_code);
}

int serve_islands(const server::DaemonOptions& options, const IslandCliOptions& o, const std::string& device,
                  bool interpreter) {
  auto mpi = start_mpi("serve");
  const evolver::IslandOptions io = island_options(o);
  if (mpi->rank() != 0) {
    work_islands(*mpi, io, device, interpreter);
    return 0;
  }
  std::unique_ptr<server::Daemon> daemon;
  try {
    daemon = std::make_unique<server::Daemon>(options);
  } catch (...) {
    // They wait for islands that will not come.
    fail(*mpi, io, evolver::dismiss_workers(*mpi, io), std::current_exception());
  }
  // MPI stays on this thread (MPI_THREAD_FUNNELED); the daemon serves on its own threads
  // and takes SIGINT/SIGTERM itself. Its shutdown checkpoints rank 0's runs; then the other
  // islands are stopped, and their final checkpoints stored, before the store closes.
  std::atomic<bool> stopping{false};
  int rc = 0;
  std::thread http([&] {
    rc = daemon->run();
    stopping.store(true);
  });
  std::vector<int> silent;
  {
    evolver::IslandCoordinator islands(*mpi, io, daemon->manager());
    silent = evolver::follow_running_runs(islands, daemon->manager(), stopping);
  }
  http.join();
  if (!silent.empty()) {
    // Everything is stored; the store is closed first unless work was left behind.
    if (!daemon->left_work_behind()) daemon.reset();
    end_job_if_hung(*mpi, io, silent, rc ? rc : hung_rank_exit_code);  // does not return
  }
  if (daemon->left_work_behind()) {
    mpi.reset();  // MPI_Finalize, so that mpirun sees a clean exit
    std::_Exit(rc);
  }
  return rc;
}

}  // namespace mixforge::cli
