#pragma once
// What the chaos clients learned from the daemon's answers, shared by every thread: the
// runs it acknowledged creating and deleting, every hall-of-fame entry it ever reported,
// status counts, latencies, and the invariant violations found. The invariant checks
// compare the daemon's later state against this record.
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace mixforge::chaos {

using Rng = std::mt19937_64;

struct FameEntry {
  std::string run_id, program_id, text;
  int width = 0;
  double chi2 = 0;
  bool exact = false;
};

enum class Fate {
  alive,          // created (201) and not deleted
  deleted,        // DELETE answered 204
  maybe_deleted,  // a DELETE got no answer (the daemon was killed): either is legal
};

struct RunRecord {
  int width = 0;
  Fate fate = Fate::alive;
};

class Ledger {
 public:
  // Violations are printed at once (with the seconds since start) and counted.
  void violation(const std::string& what);
  std::size_t violation_count() const;
  std::vector<std::string> violations() const;

  void run_created(const std::string& id, int width);
  void create_unacknowledged();  // a create got no answer: the run may or may not exist
  void run_deleted(const std::string& id);
  void delete_unacknowledged(const std::string& id);
  // After a check saw the truth: settle the runs whose fate was unknown.
  void settle(const std::map<std::string, int>& listed_widths);
  std::map<std::string, RunRecord> runs() const;
  int unacknowledged_creates() const;
  // A run id to act on: mostly a live one, sometimes a deleted one (404 expected).
  std::optional<std::string> pick_run(Rng& rng) const;

  // A hall-of-fame entry as the API reported it; a later report of the same exact entry
  // with another chi2 is a violation at once.
  void fame_reported(const FameEntry& e);
  std::vector<FameEntry> fame() const;
  std::optional<FameEntry> pick_fame(Rng& rng) const;

  // One HTTP exchange of an operation class: its status (0: no answer) and duration.
  void record(const std::string& op, int status, double seconds);
  void transport_error(const std::string& op, bool expected);

  struct Totals {
    std::uint64_t ops = 0, answered = 0, expected_errors = 0, unexpected_errors = 0;
    std::map<int, std::uint64_t> statuses;
    // op -> (count, p50 ms, p99 ms)
    std::map<std::string, std::tuple<std::size_t, double, double>> latency;
  };
  Totals totals() const;

 private:
  mutable std::mutex mu_;
  std::vector<std::string> violations_;
  std::map<std::string, RunRecord> runs_;
  int unacknowledged_creates_ = 0;
  std::map<std::pair<std::string, std::string>, FameEntry> fame_;
  std::uint64_t ops_ = 0, expected_errors_ = 0, unexpected_errors_ = 0;
  std::map<int, std::uint64_t> statuses_;
  std::map<std::string, std::vector<float>> latency_ms_;
};

}  // namespace mixforge::chaos
