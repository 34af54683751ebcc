#include "evolver/mpi_islands.hpp"

#include <nlohmann/json.hpp>

#include <chrono>
#include <list>
#include <random>
#include <thread>

#include "avalanche/evaluator.hpp"
#include "evolver/run.hpp"
#include "evolver/run_manager.hpp"
#include "mixer/text_form.hpp"

#if MIXFORGE_WITH_MPI
#include <mpi.h>
#endif

namespace mixforge::evolver {

#if !MIXFORGE_WITH_MPI

bool mpi_available() { return false; }
MpiSession::MpiSession(int*, char***) {
  throw IslandError("islands need Open MPI, and this mixforge was built without it (install libopenmpi-dev and "
                    "openmpi-bin, then rebuild)");
}
MpiSession::~MpiSession() = default;
std::vector<IslandStatus> run_island(MpiSession&, const IslandOptions&, RunManager*, const std::string&,
                                     const RunConfig&, const Evaluator&, const std::atomic<bool>&) {
  throw IslandError("islands need Open MPI");
}

#else

namespace {

// Message tags. Every payload is JSON text.
constexpr int tag_migrants = 1;  // {"programs": [text...]}         any rank -> any rank
constexpr int tag_report = 2;    // an island's status and new bests  rank > 0 -> rank 0
constexpr int tag_stop = 3;      // {}                                rank 0 -> rank > 0
constexpr double tick_s = 0.02;

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// Non-blocking sends whose buffers live until MPI is done with them.
class Outbox {
 public:
  void send(int to, int tag, std::string payload) {
    pending_.push_back({MPI_REQUEST_NULL, std::move(payload)});
    Pending& p = pending_.back();
    MPI_Isend(p.payload.data(), static_cast<int>(p.payload.size()), MPI_CHAR, to, tag, MPI_COMM_WORLD, &p.request);
  }
  void progress() {
    for (auto it = pending_.begin(); it != pending_.end();) {
      int done = 0;
      MPI_Test(&it->request, &done, MPI_STATUS_IGNORE);
      it = done ? pending_.erase(it) : std::next(it);
    }
  }
  // Waits up to timeout_s for the sends to complete; what a lost rank never takes is
  // cancelled so that MPI_Finalize does not wait for it.
  void drain(double timeout_s) {
    const auto start = Clock::now();
    while (!pending_.empty() && seconds_since(start) < timeout_s) {
      progress();
      std::this_thread::sleep_for(std::chrono::duration<double>(tick_s));
    }
    for (Pending& p : pending_) {
      MPI_Cancel(&p.request);
      MPI_Request_free(&p.request);
    }
    pending_.clear();
  }

 private:
  struct Pending {
    MPI_Request request;
    std::string payload;
  };
  std::list<Pending> pending_;
};

// The next message with this tag from `from` (MPI_ANY_SOURCE: anyone), if one is waiting.
std::optional<std::pair<int, nlohmann::json>> receive(int from, int tag) {
  int waiting = 0;
  MPI_Status status;
  MPI_Iprobe(from, tag, MPI_COMM_WORLD, &waiting, &status);
  if (!waiting) return std::nullopt;
  int size = 0;
  MPI_Get_count(&status, MPI_CHAR, &size);
  std::string text(static_cast<std::size_t>(size), '\0');
  MPI_Recv(text.data(), size, MPI_CHAR, status.MPI_SOURCE, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  return std::make_pair(status.MPI_SOURCE, nlohmann::json::parse(text, nullptr, false));
}

// A hall-of-fame entry another island reported (its to_json form), for rank 0's run.
HallOfFameEntry entry_from_json(const nlohmann::json& j, const std::string& run_id) {
  HallOfFameEntry e;
  e.function = scored_function_from_json(j);
  e.run_id = run_id;
  e.elapsed_s = j.at("elapsed_s").get<double>();
  e.tournaments = j.at("tournaments").get<std::uint64_t>();
  e.recorded_at = unix_now();
  return e;
}

// Migration for one island: sends on the tournament clock, takes in what arrives.
class Migration {
 public:
  Migration(const MpiSession& mpi, const IslandOptions& o, IslandStatus& status)
      : mpi_(mpi), o_(o), status_(status), next_send_(o.migration_interval),
        rng_(0x15a1d5u + static_cast<unsigned>(mpi.rank())) {}

  void step(Run& run, Outbox& out, bool accept) {
    const RunCounters c = run.counters();
    if (mpi_.size() > 1 && o_.migration_interval > 0 && c.tournaments >= next_send_) {
      nlohmann::json programs = nlohmann::json::array();
      for (const Program& p : run.emigrants(o_.migrants)) programs.push_back(format_program(p));
      out.send(target(), tag_migrants, nlohmann::json{{"programs", programs}}.dump());
      status_.migrants_sent += programs.size();
      while (next_send_ <= c.tournaments) next_send_ += o_.migration_interval;
    }
    while (auto m = receive(MPI_ANY_SOURCE, tag_migrants)) {
      if (!accept || m->second.is_discarded()) continue;
      std::vector<Program> programs;
      for (const auto& t : m->second.value("programs", nlohmann::json::array())) {
        try {
          programs.push_back(parse_program(t.get<std::string>(), {.width = run.config().width}));
        } catch (const std::exception&) {
          // A malformed migrant is dropped; islands of one run share a shape.
        }
      }
      status_.migrants_received += programs.size();
      status_.migrants_accepted += run.immigrate(programs);
    }
  }

 private:
  int target() {
    const int n = mpi_.size();
    if (!o_.random_topology) return (mpi_.rank() + 1) % n;
    std::uniform_int_distribution<int> pick(1, n - 1);
    return (mpi_.rank() + pick(rng_)) % n;
  }
  const MpiSession& mpi_;
  const IslandOptions& o_;
  IslandStatus& status_;
  std::uint64_t next_send_;
  std::mt19937 rng_;
};

std::vector<IslandStatus> run_rank0(MpiSession& mpi, const IslandOptions& o, RunManager& manager,
                                    const std::string& run_id, const std::atomic<bool>& stop) {
  std::vector<IslandStatus> islands(static_cast<std::size_t>(mpi.size()));
  std::vector<Clock::time_point> heard(islands.size(), Clock::now());
  for (std::size_t r = 0; r < islands.size(); ++r) islands[r].rank = static_cast<int>(r);
  IslandStatus& mine = islands[0];
  Migration migration(mpi, o, mine);
  Outbox out;
  auto take_reports = [&] {
    while (auto m = receive(MPI_ANY_SOURCE, tag_report)) {
      const auto r = static_cast<std::size_t>(m->first);
      if (m->second.is_discarded() || r >= islands.size()) continue;
      heard[r] = Clock::now();
      try {
        const auto best = islands[r].best;
        islands[r] = island_status_from_json(m->second);
        islands[r].lost = false;  // it speaks again
        if (!islands[r].best) islands[r].best = best;
      } catch (const std::exception&) {
        continue;  // a malformed report changes nothing
      }
      std::vector<HallOfFameEntry> entries;
      for (const auto& e : m->second.value("hall_of_fame", nlohmann::json::array())) {
        try {
          entries.push_back(entry_from_json(e, run_id));
        } catch (const std::exception&) {
        }
      }
      if (!entries.empty()) manager.add_hall_of_fame(entries);
    }
    for (std::size_t r = 1; r < islands.size(); ++r)
      if (!islands[r].finished && !islands[r].lost && seconds_since(heard[r]) > o.rank_timeout_s)
        islands[r].lost = true;  // reported to the caller; the run goes on
  };
  auto last_stored = Clock::now();
  auto store_islands = [&] {
    try {
      manager.set_islands(run_id, islands);
    } catch (const std::exception&) {
      // The run was deleted meanwhile: nothing to record.
    }
    last_stored = Clock::now();
  };
  while (true) {
    bool live = manager.with_active_run(run_id, [&](Run& run) {
      migration.step(run, out, true);
      mine.counters = run.counters();
      if (auto b = run.best()) mine.best = scored_function(*b);
    });
    take_reports();
    if (seconds_since(last_stored) >= o.report_interval_s) store_islands();
    out.progress();
    if (stop.load()) {
      manager.stop(run_id);
      live = false;
    }
    if (!live) break;
    std::this_thread::sleep_for(std::chrono::duration<double>(tick_s));
  }
  // Stop the others and wait for their final reports (or their silence).
  for (int r = 1; r < mpi.size(); ++r)
    if (!islands[static_cast<std::size_t>(r)].lost) out.send(r, tag_stop, "{}");
  const auto asked = Clock::now();
  auto all_done = [&] {
    for (std::size_t r = 1; r < islands.size(); ++r)
      if (!islands[r].finished && !islands[r].lost) return false;
    return true;
  };
  while (!all_done()) {
    take_reports();
    while (receive(MPI_ANY_SOURCE, tag_migrants)) {
    }
    out.progress();
    if (seconds_since(asked) > o.rank_timeout_s)
      for (std::size_t r = 1; r < islands.size(); ++r)
        if (!islands[r].finished) islands[r].lost = true;
    std::this_thread::sleep_for(std::chrono::duration<double>(tick_s));
  }
  out.drain(1);
  const RunSummary s = manager.get(run_id);
  mine.counters = s.counters;
  mine.best = s.best;
  mine.finished = true;
  store_islands();
  return islands;
}

IslandStatus run_other(MpiSession& mpi, const IslandOptions& o, const RunConfig& base, const Evaluator& evaluator,
                       const std::atomic<bool>& stop) {
  IslandStatus mine;
  mine.rank = mpi.rank();
  RunConfig config = base;
  config.seed = base.seed + static_cast<std::uint64_t>(mpi.rank());
  const Evaluator interpreter(nullptr);  // small tasks, as the run manager does it
  Run run("island-" + std::to_string(mpi.rank()), config, evaluator, std::nullopt,
          evaluator.uses_jit() ? &interpreter : nullptr);
  run.start(config.budget);
  Migration migration(mpi, o, mine);
  Outbox out;
  auto last_report = Clock::now() - std::chrono::hours(1);
  auto report = [&](bool final) {
    mine.counters = run.counters();
    mine.finished = final;
    nlohmann::json entries = nlohmann::json::array();
    for (const HallOfFameEntry& e : run.drain_hall_of_fame()) {
      entries.push_back(to_json(e));
      ++mine.bests_reported;
      if (!mine.best || e.function.rank() < mine.best->rank()) mine.best = e.function;
    }
    nlohmann::json j = to_json(mine);
    j["hall_of_fame"] = std::move(entries);
    out.send(0, tag_report, j.dump());
    last_report = Clock::now();
  };
  while (!receive(0, tag_stop) && !stop.load()) {
    migration.step(run, out, !run.done());
    if (seconds_since(last_report) >= o.report_interval_s) report(false);
    out.progress();
    std::this_thread::sleep_for(std::chrono::duration<double>(tick_s));
  }
  run.request_stop();
  run.wait();
  report(true);
  while (receive(MPI_ANY_SOURCE, tag_migrants)) {
  }
  out.drain(o.rank_timeout_s);
  return mine;
}

}  // namespace

bool mpi_available() { return true; }

MpiSession::MpiSession(int* argc, char*** argv) {
  int provided = 0;
  // Only the calling thread (the main thread) calls MPI; the run's workers never do.
  if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
    throw IslandError("MPI_Init_thread failed");
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
}

MpiSession::~MpiSession() { MPI_Finalize(); }

std::vector<IslandStatus> run_island(MpiSession& mpi, const IslandOptions& options, RunManager* manager,
                                     const std::string& run_id, const RunConfig& config,
                                     const Evaluator& evaluator, const std::atomic<bool>& stop) {
  if (mpi.rank() == 0) {
    if (!manager) throw IslandError("rank 0 needs the run manager");
    return run_rank0(mpi, options, *manager, run_id, stop);
  }
  return {run_other(mpi, options, config, evaluator, stop)};
}

#endif

}  // namespace mixforge::evolver
