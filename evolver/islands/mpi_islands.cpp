#include "evolver/islands/mpi_islands.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <list>
#include <random>
#include <thread>

#include "avalanche/evaluator.hpp"
#include "evolver/run/checkpoint_json.hpp"
#include "evolver/run/run.hpp"
#include "evolver/run/run_types_json.hpp"
#include "evolver/manager/run_manager.hpp"
#include "mixer/text_form.hpp"

#if MIXFORGE_WITH_MPI
#include <mpi.h>
#endif

namespace mixforge::evolver {

#if !MIXFORGE_WITH_MPI

namespace {
[[noreturn]] void no_mpi() { throw IslandError("islands need Open MPI"); }
}  // namespace

bool mpi_available() { return false; }
MpiSession::MpiSession(int*, char***) {
  throw IslandError("islands need Open MPI, and this mixforge was built without it (install libopenmpi-dev and "
                    "openmpi-bin, then rebuild)");
}
MpiSession::~MpiSession() = default;
void MpiSession::abort(int) { no_mpi(); }
struct IslandCoordinator::Impl {};
IslandCoordinator::IslandCoordinator(MpiSession&, IslandOptions, RunManager&) { no_mpi(); }
IslandCoordinator::~IslandCoordinator() = default;
void IslandCoordinator::attach(const std::string&, std::optional<Budget>) { no_mpi(); }
bool IslandCoordinator::attached() const { return false; }
const std::string& IslandCoordinator::run_id() const { no_mpi(); }
bool IslandCoordinator::step() { no_mpi(); }
void IslandCoordinator::await_budgets(const std::atomic<bool>&) { no_mpi(); }
std::vector<IslandStatus> IslandCoordinator::detach() { no_mpi(); }
std::vector<int> IslandCoordinator::shutdown() { no_mpi(); }
std::vector<IslandStatus> drive_island_run(IslandCoordinator&, RunManager&, const std::string&,
                                           std::optional<Budget>, const std::atomic<bool>&) {
  no_mpi();
}
std::vector<int> follow_running_runs(IslandCoordinator&, RunManager&, const std::atomic<bool>&) { no_mpi(); }
std::vector<int> dismiss_workers(MpiSession&, const IslandOptions&) { no_mpi(); }
void island_worker(MpiSession&, const IslandOptions&, const avalanche::Evaluator&, const std::atomic<bool>&) {
  no_mpi();
}

#else

namespace {

// Message tags. Every payload is JSON text naming the run it belongs to, so a message
// that arrives after its island ended (a late migrant, a late report) is recognised.
constexpr int tag_migrants = 1;  // {run_id, programs: [text...]}                 any -> any
constexpr int tag_report = 2;    // {run_id, status..., hall_of_fame, checkpoint?}  rank > 0 -> 0
constexpr int tag_stop = 3;      // {run_id}: end your island of this run          0 -> rank > 0
constexpr int tag_start = 4;     // {run_id, config, checkpoint, status}           0 -> rank > 0
constexpr int tag_exit = 5;      // {}                                             0 -> rank > 0
constexpr int tag_bye = 6;       // {}: exiting, the answer to tag_exit             rank > 0 -> 0
constexpr double tick_s = 0.02;

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }
void tick() { std::this_thread::sleep_for(std::chrono::duration<double>(tick_s)); }

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
      tick();
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

// Messages are taken in without ever blocking: MPI_Improbe matches one, MPI_Imrecv takes it
// in while the caller goes on, and it is handed out once complete. An MPI_Recv after a probe
// waits for the whole message, and a large one (a report with its checkpoint goes by
// rendezvous, in fragments the sender pushes) from a rank that hangs halfway never comes:
// rank 0 then waited forever in the middle of the run instead of marking that island lost
// (hung_rank_test.sh, 1 run in 6).
class Inbox {
 public:
  // The next complete message with this tag from `from` (MPI_ANY_SOURCE: anyone); those of
  // one rank in the order it sent them.
  std::optional<std::pair<int, std::string>> take(int from, int tag) {
    for (;;) {
      int found = 0;
      MPI_Message message;
      MPI_Status status;
      MPI_Improbe(from, tag, MPI_COMM_WORLD, &found, &message, &status);
      if (!found) break;
      int size = 0;
      MPI_Get_count(&status, MPI_CHAR, &size);
      pending_.push_back({status.MPI_SOURCE, tag, std::string(static_cast<std::size_t>(size), '\0')});
      Pending& p = pending_.back();
      MPI_Imrecv(p.text.data(), size, MPI_CHAR, &message, &p.request);
    }
    std::vector<int> waiting;  // ranks with an earlier message of this tag still coming in
    for (auto it = pending_.begin(); it != pending_.end(); ++it) {
      if (it->tag != tag || (from != MPI_ANY_SOURCE && it->source != from)) continue;
      if (std::find(waiting.begin(), waiting.end(), it->source) != waiting.end()) continue;
      int done = 0;
      MPI_Test(&it->request, &done, MPI_STATUS_IGNORE);
      if (!done) {
        waiting.push_back(it->source);
        continue;
      }
      auto out = std::make_pair(it->source, std::move(it->text));
      pending_.erase(it);
      return out;
    }
    return std::nullopt;
  }

 private:
  struct Pending {
    int source, tag;
    std::string text;
    MPI_Request request = MPI_REQUEST_NULL;
  };
  std::list<Pending> pending_;
};

// The next message with this tag from `from` (MPI_ANY_SOURCE: anyone), if one has come in
// whole. A payload that is not JSON comes back discarded (is_discarded()).
std::optional<std::pair<int, nlohmann::json>> receive(int from, int tag) {
  static Inbox inbox;  // only the main thread calls MPI (MPI_THREAD_FUNNELED)
  auto m = inbox.take(from, tag);
  if (!m) return std::nullopt;
  return std::make_pair(m->first, nlohmann::json::parse(m->second, nullptr, false));
}

std::string run_of(const nlohmann::json& message) {
  return message.is_object() ? message.value("run_id", std::string()) : std::string();
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

// The island options with the run's own migration settings, where it has them.
IslandOptions for_run(IslandOptions o, const RunConfig& config) {
  if (const auto& m = config.migration) {
    o.migration_interval = m->interval;
    o.migrants = static_cast<std::size_t>(m->migrants);
    o.random_topology = m->random_topology;
  }
  return o;
}

// Migration for one island of run `run_id`: sends on the tournament clock, at every multiple
// of the interval, takes in what arrives for the same run (migrants of an earlier island run
// are dropped).
class Migration {
 public:
  // The first send is due at the next multiple of the interval after tournaments_now: not an
  // interval after it, since rank 0 attaches to a run that has already started, and on a
  // busy machine its island had made some tournaments by then (16 to 26 in 3 of 8 tries),
  // which put its sends off the run's clock (none at all in a run of one interval).
  Migration(const MpiSession& mpi, const IslandOptions& o, std::string run_id, IslandStatus& status,
            std::uint64_t tournaments_now)
      : mpi_(mpi), o_(o), run_id_(std::move(run_id)), status_(status),
        // Sends fall on multiples of the interval of the run's own tournament count, wherever
        // the island joins it: rank 0 attaches to a run that has already started (a fast one
        // may be tournaments ahead by then), and a resumed island carries its count on.
        next_send_(o.migration_interval ? (tournaments_now / o.migration_interval + 1) * o.migration_interval : 0),
        rng_(0x15a1d5u + static_cast<unsigned>(mpi.rank())) {}

  void step(Run& run, Outbox& out, bool accept) {
    send_if_due(run, out);
    while (auto m = receive(MPI_ANY_SOURCE, tag_migrants)) {
      if (!accept || run_of(m->second) != run_id_) continue;
      std::vector<mixer::Program> programs;
      for (const auto& t : m->second.value("programs", nlohmann::json::array())) {
        try {
          programs.push_back(mixer::parse_program(t.get<std::string>(), {.width = run.config().width}));
        } catch (const std::exception&) {
          // A malformed migrant is dropped; islands of one run share a shape.
        }
      }
      status_.migrants_received += programs.size();
      status_.migrants_accepted += run.immigrate(programs);
    }
  }

  // Sends the best migrants once `tournaments` has reached the next multiple of the
  // interval (one send, however many multiples a slow poll stepped over); best(k): the k
  // best. Called at each step and once more when the island's run has ended, for the send
  // due by its last tournament, which the last poll may not have seen (a budget can run out
  // between two polls); a second call with the same count sends nothing.
  void send_if_due(std::uint64_t tournaments, const std::function<std::vector<mixer::Program>(std::size_t)>& best,
                   Outbox& out) {
    if (mpi_.size() < 2 || o_.migration_interval == 0 || tournaments < next_send_) return;
    nlohmann::json programs = nlohmann::json::array();
    for (const mixer::Program& p : best(o_.migrants)) programs.push_back(mixer::format_program(p));
    status_.migrants_sent += programs.size();
    out.send(target(), tag_migrants, nlohmann::json{{"run_id", run_id_}, {"programs", programs}}.dump());
    while (next_send_ <= tournaments) next_send_ += o_.migration_interval;
  }
  void send_if_due(const Run& run, Outbox& out) {
    send_if_due(run.counters().tournaments, [&](std::size_t k) { return run.emigrants(k); }, out);
  }

 private:
  int target() {
    const int n = mpi_.size();
    if (!o_.random_topology) return (mpi_.rank() + 1) % n;
    std::uniform_int_distribution<int> pick(1, n - 1);
    return (mpi_.rank() + pick(rng_)) % n;
  }
  const MpiSession& mpi_;
  const IslandOptions o_;
  std::string run_id_;
  IslandStatus& status_;
  std::uint64_t next_send_;
  std::mt19937 rng_;
};

void drop_waiting(int tag) {
  while (receive(MPI_ANY_SOURCE, tag)) {
  }
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
  // Every rank constructs its session at the same point, so this collective is safe here.
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int length = 0;
  MPI_Get_processor_name(name, &length);
  std::vector<char> all(static_cast<std::size_t>(size_) * MPI_MAX_PROCESSOR_NAME);
  MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all.data(), MPI_MAX_PROCESSOR_NAME, MPI_CHAR,
                MPI_COMM_WORLD);
  for (int r = 0; r < size_; ++r) {
    const char* p = all.data() + static_cast<std::size_t>(r) * MPI_MAX_PROCESSOR_NAME;
    hosts_.emplace_back(p, strnlen(p, MPI_MAX_PROCESSOR_NAME));
  }
}

MpiSession::~MpiSession() { MPI_Finalize(); }

void MpiSession::abort(int code) {
  MPI_Abort(MPI_COMM_WORLD, code);
  std::_Exit(code);  // MPI_Abort does not return; this is for the compiler
}

// --- rank 0 ------------------------------------------------------------------------------

struct IslandCoordinator::Impl {
  MpiSession& mpi;
  IslandOptions o;
  RunManager& manager;
  Outbox out;
  std::string run_id;  // empty: not attached
  std::vector<IslandStatus> islands;
  std::vector<Clock::time_point> heard;
  std::unique_ptr<Migration> migration;  // rank 0's own island
  Clock::time_point last_stored;

  Impl(MpiSession& m, IslandOptions options, RunManager& rm) : mpi(m), o(options), manager(rm) {}

  // Reports of the other islands: counters and bests for the attached run; checkpoints for
  // whichever run they name (a late final report of an earlier attachment still counts).
  // A report with new bests has the islands stored at once: the run's best is the best
  // over its islands (RunManager::set_islands) as soon as rank 0 hears of it.
  void take_reports() {
    bool new_bests = false;
    while (auto m = receive(MPI_ANY_SOURCE, tag_report)) {
      const auto r = static_cast<std::size_t>(m->first);
      const nlohmann::json& j = m->second;
      if (j.is_discarded() || r == 0 || r >= static_cast<std::size_t>(mpi.size())) continue;
      const std::string of = run_of(j);
      std::optional<std::uint64_t> checkpointed;
      if (j.contains("checkpoint") && !of.empty()) {
        try {
          const Checkpoint c = checkpoint_from_json(j["checkpoint"]);
          manager.set_island_checkpoint(of, static_cast<int>(r), c);
          checkpointed = c.counters.tournaments;
        } catch (const std::exception&) {
          // A malformed checkpoint, or its run was deleted: the previous one stays.
        }
      }
      if (of != run_id || run_id.empty()) continue;
      heard[r] = Clock::now();
      try {
        const IslandStatus before = islands[r];
        islands[r] = island_status_from_json(j);
        islands[r].rank = static_cast<int>(r);
        islands[r].host = mpi.hosts()[r];
        islands[r].lost = false;  // it speaks again
        if (!islands[r].best) islands[r].best = before.best;
        islands[r].checkpoint_tournaments = checkpointed.value_or(before.checkpoint_tournaments);
      } catch (const std::exception&) {
        continue;  // a malformed report changes nothing
      }
      std::vector<HallOfFameEntry> entries;
      for (const auto& e : j.value("hall_of_fame", nlohmann::json::array())) {
        try {
          entries.push_back(entry_from_json(e, run_id));
        } catch (const std::exception&) {
        }
      }
      if (!entries.empty()) {
        new_bests = true;
        try {
          manager.add_hall_of_fame(entries);
        } catch (const std::exception& e) {
          // The run goes on, but the loss is said: the island's later reports carry only
          // newer bests.
          std::fprintf(stderr, "mixforge: rank 0 could not store %zu hall-of-fame entries of island %zu: %s\n",
                       entries.size(), r, e.what());
        }
      }
    }
    for (std::size_t r = 1; r < islands.size(); ++r)
      if (!islands[r].finished && !islands[r].lost && seconds_since(heard[r]) > o.rank_timeout_s)
        islands[r].lost = true;  // recorded; the run goes on
    if (new_bests) store_islands();
  }

  // Every island but rank 0's has ended (final report) or is lost.
  bool others_done() const {
    for (std::size_t r = 1; r < islands.size(); ++r)
      if (!islands[r].finished && !islands[r].lost) return false;
    return true;
  }

  // Rank 0's island has ended (budget spent, stopped) or paused: the send due by its last
  // tournament, which the last step may not have seen. From the stored run, so after its
  // final checkpoint (a paused run stays active with its pool live).
  void send_last_migrants() {
    try {
      if (manager.get(run_id).state != RunState::paused) manager.wait(run_id, o.rank_timeout_s);
      migration->send_if_due(
          manager.get(run_id).counters.tournaments,
          [&](std::size_t k) {
            PoolQuery best;  // by rank, as Run::emigrants
            best.limit = k;
            std::vector<mixer::Program> programs;
            for (ScoredFunction& f : manager.pool(run_id, best).items) programs.push_back(std::move(f.program));
            return programs;
          },
          out);
    } catch (const std::exception&) {
      // The run was deleted meanwhile: nothing to send.
    }
  }

  void store_islands() {
    try {
      islands[0].checkpoint_tournaments = manager.get(run_id).counters.tournaments;
      manager.set_islands(run_id, islands);
    } catch (const std::exception&) {
      // The run was deleted meanwhile: nothing to record.
    }
    last_stored = Clock::now();
  }
};

IslandCoordinator::IslandCoordinator(MpiSession& mpi, IslandOptions options, RunManager& manager)
    : impl_(std::make_unique<Impl>(mpi, options, manager)) {
  if (mpi.rank() != 0) throw IslandError("the island coordinator runs on rank 0");
}

IslandCoordinator::~IslandCoordinator() = default;

bool IslandCoordinator::attached() const { return !impl_->run_id.empty(); }
const std::string& IslandCoordinator::run_id() const { return impl_->run_id; }

void IslandCoordinator::attach(const std::string& run_id, std::optional<Budget> budget) {
  Impl& d = *impl_;
  if (attached()) throw IslandError("islands are already attached to run " + d.run_id);
  const RunSummary summary = d.manager.get(run_id);
  const auto checkpoints = d.manager.island_checkpoints(run_id);
  const auto n = static_cast<std::size_t>(d.mpi.size());
  d.islands.assign(n, IslandStatus{});
  for (std::size_t r = 0; r < n; ++r) {
    // Counts carry on across sessions; what an island was then (lost, finished) does not.
    for (const IslandStatus& s : summary.islands)
      if (s.rank == static_cast<int>(r)) d.islands[r] = s;
    d.islands[r].rank = static_cast<int>(r);
    d.islands[r].host = d.mpi.hosts()[r];  // where it runs now, which a resume may change
    d.islands[r].finished = d.islands[r].lost = false;
  }
  d.heard.assign(n, Clock::now());
  for (std::size_t r = 1; r < n; ++r) {
    RunConfig config = summary.config;
    config.seed = summary.config.seed + r;
    config.budget = budget.value_or(Budget{});  // none: until rank 0 stops it
    nlohmann::json start{{"run_id", run_id},
                         {"config", to_json(config)},
                         {"checkpoint", nullptr},
                         {"status", to_json(d.islands[r])}};
    if (auto c = checkpoints.find(static_cast<int>(r)); c != checkpoints.end()) {
      start["checkpoint"] = to_json(c->second);
      d.islands[r].checkpoint_tournaments = c->second.counters.tournaments;
    }
    d.out.send(static_cast<int>(r), tag_start, start.dump());
  }
  d.run_id = run_id;
  d.migration = std::make_unique<Migration>(d.mpi, for_run(d.o, summary.config), run_id, d.islands[0],
                                            summary.counters.tournaments);
  d.store_islands();
}

bool IslandCoordinator::step() {
  Impl& d = *impl_;
  if (!attached()) return false;
  bool running = false;
  const bool active = d.manager.with_active_run(d.run_id, [&](Run& run) {
    running = !run.paused();
    if (!running) return;
    d.migration->step(run, d.out, true);
    d.islands[0].counters = run.counters();
    if (auto b = run.best()) d.islands[0].best = scored_function(*b);
  });
  d.take_reports();
  if (seconds_since(d.last_stored) >= d.o.report_interval_s) d.store_islands();
  d.out.progress();
  return active && running;
}

void IslandCoordinator::await_budgets(const std::atomic<bool>& stop) {
  Impl& d = *impl_;
  if (!attached()) return;
  d.send_last_migrants();  // while the others may still take them in
  while (!d.others_done() && !stop.load()) {
    d.take_reports();  // marks an island that falls silent lost, as while running
    drop_waiting(tag_migrants);  // rank 0's island has ended: nothing takes them in
    if (seconds_since(d.last_stored) >= d.o.report_interval_s) d.store_islands();
    d.out.progress();
    tick();
  }
}

std::vector<IslandStatus> IslandCoordinator::detach() {
  Impl& d = *impl_;
  if (!attached()) return {};
  d.send_last_migrants();
  for (std::size_t r = 1; r < d.islands.size(); ++r)
    if (!d.islands[r].lost) d.out.send(static_cast<int>(r), tag_stop, nlohmann::json{{"run_id", d.run_id}}.dump());
  const auto asked = Clock::now();
  while (!d.others_done()) {
    d.take_reports();
    drop_waiting(tag_migrants);
    d.out.progress();
    if (seconds_since(asked) > d.o.rank_timeout_s)
      for (std::size_t r = 1; r < d.islands.size(); ++r)
        if (!d.islands[r].finished) d.islands[r].lost = true;
    tick();
  }
  try {
    d.islands[0].counters = d.manager.get(d.run_id).counters;
    // Rank 0's island's own best: the run's (get) is the best over all islands.
    if (auto own = d.manager.own_best(d.run_id)) d.islands[0].best = own;
  } catch (const std::exception&) {
  }
  d.islands[0].finished = true;
  d.store_islands();
  std::vector<IslandStatus> islands = std::move(d.islands);
  d.islands.clear();
  d.migration.reset();
  d.run_id.clear();
  return islands;
}

std::vector<int> IslandCoordinator::shutdown() {
  impl_->out.drain(impl_->o.rank_timeout_s);
  return dismiss_workers(impl_->mpi, impl_->o);
}

std::vector<int> dismiss_workers(MpiSession& mpi, const IslandOptions& o) {
  Outbox out;
  std::vector<bool> answered(static_cast<std::size_t>(mpi.size()), false);
  for (int r = 1; r < mpi.size(); ++r) out.send(r, tag_exit, "{}");
  const auto asked = Clock::now();
  auto all_answered = [&] { return std::find(answered.begin() + 1, answered.end(), false) == answered.end(); };
  while (!all_answered() && seconds_since(asked) < o.rank_timeout_s) {
    while (auto m = receive(MPI_ANY_SOURCE, tag_bye)) answered[static_cast<std::size_t>(m->first)] = true;
    drop_waiting(tag_report);  // late ones: nothing is attached any more
    drop_waiting(tag_migrants);
    out.progress();
    tick();
  }
  out.drain(0);  // what a silent rank never took is cancelled
  std::vector<int> silent;
  for (int r = 1; r < mpi.size(); ++r)
    if (!answered[static_cast<std::size_t>(r)]) silent.push_back(r);
  return silent;
}

std::vector<IslandStatus> drive_island_run(IslandCoordinator& islands, RunManager& manager, const std::string& run_id,
                                           std::optional<Budget> budget, const std::atomic<bool>& stop) {
  islands.attach(run_id, budget);
  bool stopped = false;
  while (islands.step()) {
    if (stop.load()) {
      manager.stop(run_id);
      stopped = true;
      break;
    }
    tick();
  }
  // Rank 0's budget is spent: each other island has a budget of its own, counted from its
  // start, and ends by itself when it is spent (an oversubscribed rank may be far behind).
  if (!stopped && budget && (budget->seconds || budget->tournaments)) islands.await_budgets(stop);
  return islands.detach();
}

std::vector<int> follow_running_runs(IslandCoordinator& islands, RunManager& manager, const std::atomic<bool>& stop) {
  auto last_look = Clock::now() - std::chrono::hours(1);
  while (!stop.load()) {
    if (islands.attached()) {
      if (!islands.step()) islands.detach();
    } else if (seconds_since(last_look) >= 0.25) {
      last_look = Clock::now();
      std::optional<RunSummary> oldest;
      try {
        for (const RunSummary& s : manager.list())
          if (s.state == RunState::running && manager.active(s.id) && (!oldest || s.created_at < oldest->created_at))
            oldest = s;
        if (oldest) islands.attach(oldest->id, std::nullopt);
      } catch (const std::exception&) {
        // Deleted between the listing and the attach: look again.
      }
    }
    tick();
  }
  if (islands.attached()) islands.detach();
  return islands.shutdown();
}

// --- ranks > 0 ---------------------------------------------------------------------------

namespace {

// One island of the run a start message describes, until rank 0 stops it (or exits, or
// *stop). Returns true when rank 0 said to exit meanwhile.
bool evolve_island(MpiSession& mpi, const IslandOptions& o, const avalanche::Evaluator& evaluator,
                   const nlohmann::json& start, const std::atomic<bool>& stop, Outbox& out) {
  const std::string run_id = start.at("run_id").get<std::string>();
  const RunConfig config = run_config_from_json(start.at("config"));
  std::optional<Checkpoint> from;
  if (!start.at("checkpoint").is_null()) from = checkpoint_from_json(start["checkpoint"]);
  IslandStatus mine = island_status_from_json(start.at("status"));
  mine.rank = mpi.rank();
  mine.finished = mine.lost = false;
  const avalanche::Evaluator interpreter(nullptr);  // small tasks, as the run manager does it
  Run run(run_id + "/island-" + std::to_string(mpi.rank()), config, evaluator, std::move(from),
          evaluator.uses_jit() ? &interpreter : nullptr);
  run.start(config.budget);
  Migration migration(mpi, for_run(o, config), run_id, mine, run.counters().tournaments);
  auto last_report = Clock::now() - std::chrono::hours(1);
  auto last_checkpoint = Clock::now();
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
    j["run_id"] = run_id;
    j["hall_of_fame"] = std::move(entries);
    if (final || seconds_since(last_checkpoint) >= o.checkpoint_interval_s) {
      j["checkpoint"] = to_json(run.snapshot());
      last_checkpoint = Clock::now();
    }
    out.send(0, tag_report, j.dump());
    last_report = Clock::now();
  };
  bool exit = false;
  while (!stop.load()) {
    if (auto m = receive(0, tag_stop); m && run_of(m->second) == run_id) break;
    if (receive(0, tag_exit)) {
      exit = true;
      break;
    }
    // Its own budget spent: the island ends here (rank 0 waits for it when its own ends).
    if (run.done()) break;
    migration.step(run, out, true);
    if (seconds_since(last_report) >= o.report_interval_s) report(false);
    out.progress();
    tick();
  }
  run.request_stop();
  run.wait();
  migration.send_if_due(run, out);  // the send due by its last tournament
  report(true);
  return exit;
}

}  // namespace

void island_worker(MpiSession& mpi, const IslandOptions& o, const avalanche::Evaluator& evaluator,
                   const std::atomic<bool>& stop) {
  Outbox out;
  std::optional<Clock::time_point> stopping_since;
  bool dismissed = false;  // rank 0 said to exit
  while (true) {
    if (receive(0, tag_exit)) {
      dismissed = true;
      break;
    }
    if (auto start = receive(0, tag_start)) {
      if (stop.load()) continue;  // shutting down: no new island
      bool exit = false;
      try {
        exit = evolve_island(mpi, o, evaluator, start->second, stop, out);
      } catch (const std::exception& e) {
        // A start this rank cannot follow (say, a config it cannot read): rank 0 marks the
        // island lost after the rank timeout; the run goes on without it.
        std::fprintf(stderr, "mixforge: island %d: %s\n", mpi.rank(), e.what());
      }
      if (exit) {
        dismissed = true;
        break;
      }
    }
    drop_waiting(tag_migrants);  // for an island that is no longer here
    drop_waiting(tag_stop);
    out.progress();
    if (stop.load()) {
      // Signalled (mpirun forwards SIGTERM to every rank): the final report is on its way;
      // wait for rank 0 to say to exit, or for its silence.
      if (!stopping_since) stopping_since = Clock::now();
      if (seconds_since(*stopping_since) > o.rank_timeout_s) break;
    }
    tick();
  }
  // Rank 0 waits for this answer: a rank that gives none is hung, and rank 0 then ends the
  // job (MpiSession::abort) rather than wait forever in MPI_Finalize.
  if (dismissed) out.send(0, tag_bye, "{}");
  out.drain(o.rank_timeout_s);
}

#endif

}  // namespace mixforge::evolver
