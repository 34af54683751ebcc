#pragma once
// The promises the chaos test holds the daemon to, checked after every restart and at the
// end. Violations go to the ledger (the count must stay 0).
#include <filesystem>

#include "tests/chaos/ledger.hpp"

namespace mixforge::chaos {

struct CheckSettings {
  std::filesystem::path exe;      // mixforge, for exact re-scoring with `mixforge eval`
  std::filesystem::path scratch;  // a folder for database copies
  int max_runs = 4;               // the daemon's --max-runs
  int rescore = 2;                // hall-of-fame entries re-scored exactly per check
  int rescore_max_width = 24;     // widest entry re-scored (32: about 2 s each)
};

// With the daemon stopped: on a copy of the database (main file and WAL), PRAGMA
// integrity_check is "ok"; every run the daemon acknowledged creating (201) and did not
// delete is there, every run it acknowledged deleting (204) is not; no pool or history row
// belongs to a missing run; every hall-of-fame entry the API ever reported is there, the
// exact ones with the same chi2 bit for bit.
void check_database(const std::filesystem::path& data_dir, const CheckSettings& s, Ledger& ledger);

// With the daemon up and no client request in flight: the run list holds every live run
// exactly once and nothing unexplained; every state is legal; a sample of inactive runs
// resumes (then is stopped again); a sample of exact hall-of-fame entries re-scores to the
// same chi2 with `mixforge eval --exact`.
// Returns how many entries were re-scored.
int check_api(int port, const CheckSettings& s, Ledger& ledger, Rng& rng);

}  // namespace mixforge::chaos
