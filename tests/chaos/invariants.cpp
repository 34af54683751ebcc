#include "tests/chaos/invariants.hpp"


#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include <SQLiteCpp/SQLiteCpp.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include "support/process.hpp"

namespace mixforge::chaos {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

std::string g17(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

const std::set<std::string>& legal_states() {
  static const std::set<std::string> s = {"created", "running", "paused", "stopped", "finished"};
  return s;
}

}  // namespace

void check_database(const fs::path& data_dir, const CheckSettings& s, Ledger& ledger) {
  // A copy, so that opening it (which replays the WAL) changes nothing the daemon will see.
  const fs::path copy = s.scratch / "check.db";
  std::error_code ec;
  for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(copy.string() + suffix, ec);
  const fs::path db = data_dir / "mixforge.db";
  if (!fs::exists(db)) {
    ledger.violation("database " + db.string() + " is missing");
    return;
  }
  fs::copy_file(db, copy, fs::copy_options::overwrite_existing);
  if (fs::exists(db.string() + "-wal"))
    fs::copy_file(db.string() + "-wal", copy.string() + "-wal", fs::copy_options::overwrite_existing);
  try {
    SQLite::Database d(copy.string(), SQLite::OPEN_READWRITE);
    {
      SQLite::Statement q(d, "PRAGMA integrity_check");
      std::string result;
      while (q.executeStep()) result += (result.empty() ? "" : "; ") + q.getColumn(0).getString();
      if (result != "ok") ledger.violation("PRAGMA integrity_check: " + result.substr(0, 500));
    }
    std::map<std::string, std::string> states;
    {
      SQLite::Statement q(d, "SELECT id, state FROM runs");
      while (q.executeStep()) states[q.getColumn(0).getString()] = q.getColumn(1).getString();
    }
    for (const auto& [id, state] : states)
      if (!legal_states().count(state)) ledger.violation("database: run " + id + " stored in state " + state);
    for (const auto& [id, r] : ledger.runs()) {
      if (r.fate == Fate::alive && !states.count(id))
        ledger.violation("database: run " + id + " was created (201) and never deleted, but is gone");
      if (r.fate == Fate::deleted && states.count(id))
        ledger.violation("database: run " + id + " was deleted (204) but is back");
    }
    for (const char* table : {"pool", "history"}) {
      SQLite::Statement q(d, std::string("SELECT run_id, COUNT(*) FROM ") + table +
                                 " WHERE run_id NOT IN (SELECT id FROM runs) GROUP BY run_id");
      while (q.executeStep())
        ledger.violation(std::string("database: ") + std::to_string(q.getColumn(1).getInt64()) + " " + table +
                         " rows of missing run " + q.getColumn(0).getString());
    }
    SQLite::Statement fame(d, "SELECT chi2, exact FROM hall_of_fame WHERE run_id=? AND program_id=?");
    for (const auto& e : ledger.fame()) {
      fame.reset();
      fame.bind(1, e.run_id);
      fame.bind(2, e.program_id);
      if (!fame.executeStep()) {
        ledger.violation("database: hall-of-fame entry " + e.run_id + "/" + e.program_id + " (chi2 " + g17(e.chi2) +
                         ") reported over the API is gone");
        continue;
      }
      const double chi2 = fame.getColumn(0).getDouble();
      const bool exact = fame.getColumn(1).getInt() != 0;
      if (e.exact && (!exact || chi2 != e.chi2))
        ledger.violation("database: hall-of-fame entry " + e.run_id + "/" + e.program_id + " had exact chi2 " +
                         g17(e.chi2) + ", now " + (exact ? "exact " : "sampled ") + g17(chi2));
    }
  } catch (const std::exception& ex) {
    ledger.violation(std::string("database check failed: ") + ex.what());
  }
  for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(copy.string() + suffix, ec);
}

int check_api(int port, const CheckSettings& s, Ledger& ledger, Rng& rng) {
  httplib::Client c("127.0.0.1", port);
  c.set_connection_timeout(5, 0);
  c.set_read_timeout(60, 0);
  auto get = [&](const std::string& path) -> std::optional<json> {
    auto r = c.Get(path);
    if (!r) {
      ledger.violation("check: GET " + path + ": no answer (" + httplib::to_string(r.error()) + ")");
      return std::nullopt;
    }
    if (r->status != 200) {
      ledger.violation("check: GET " + path + " answered " + std::to_string(r->status) + ": " + r->body.substr(0, 300));
      return std::nullopt;
    }
    return json::parse(r->body, nullptr, false);
  };
  if (!get("/healthz")) return 0;

  // The full run list, page by page (no request in flight: it cannot shift under us).
  std::map<std::string, int> seen;
  std::map<std::string, int> widths;
  std::map<std::string, std::string> state_of;
  std::map<std::string, bool> active_of;
  int active = 0;
  for (std::size_t offset = 0;; offset += 1000) {
    auto page = get("/api/v1/runs?limit=1000&offset=" + std::to_string(offset));
    if (!page) return 0;
    const auto& items = (*page)["items"];
    for (const auto& r : items) {
      const std::string id = r.value("id", "");
      ++seen[id];
      widths[id] = r.contains("config") ? r["config"].value("width", 0) : 0;
      state_of[id] = r.value("state", "");
      active_of[id] = r.value("active", false);
      if (active_of[id]) ++active;
      if (!legal_states().count(state_of[id]))
        ledger.violation("check: run " + id + " in illegal state " + state_of[id] + ": " + r.dump().substr(0, 300));
    }
    if (items.size() < 1000 || offset + items.size() >= (*page).value("total", std::size_t{0})) break;
  }
  int unexplained = 0;
  const auto runs = ledger.runs();
  for (const auto& [id, n] : seen) {
    if (n > 1) ledger.violation("check: run " + id + " listed " + std::to_string(n) + " times");
    auto it = runs.find(id);
    if (it == runs.end()) ++unexplained;
    else if (it->second.fate == Fate::deleted) ledger.violation("check: run " + id + " was deleted (204) but is listed");
  }
  for (const auto& [id, r] : runs)
    if (r.fate == Fate::alive && !seen.count(id))
      ledger.violation("check: run " + id + " was created (201) and never deleted, but is not listed");
  if (unexplained > ledger.unacknowledged_creates())
    ledger.violation("check: " + std::to_string(unexplained) + " runs listed that no create explains (" +
                     std::to_string(ledger.unacknowledged_creates()) + " creates were unanswered)");
  ledger.settle(widths);

  // Every inactive run must be resumable: resume a sample with a small budget, then stop.
  std::vector<std::string> inactive;
  for (const auto& [id, st] : state_of)
    if (st != "running") inactive.push_back(id);
  std::shuffle(inactive.begin(), inactive.end(), rng);
  for (std::size_t i = 0; i < inactive.size() && i < 2; ++i) {
    const std::string& id = inactive[i];
    auto r = c.Post("/api/v1/runs/" + id + "/resume", R"({"budget": {"tournaments": 200}})", "application/json");
    if (!r) {
      ledger.violation("check: resume " + id + ": no answer");
      continue;
    }
    // At the limit a run without a session (a paused run after a restart has none) is
    // fairly refused; one that is active already counts and must resume.
    if (r->status == 429 && !active_of[id] && active >= s.max_runs) continue;
    if (r->status != 200) {
      ledger.violation("check: resume of " + id + " (state " + state_of[id] + ", " + std::to_string(active) +
                       " active) answered " + std::to_string(r->status) + ": " + r->body.substr(0, 300));
      continue;
    }
    const json j = json::parse(r->body, nullptr, false);
    const std::string st = j.is_discarded() ? "" : j.value("state", "");
    if (st != "running" && st != "finished")
      ledger.violation("check: resumed run " + id + " is in state " + st);
    if (st == "running") {
      auto stop = c.Post("/api/v1/runs/" + id + "/stop", "{}", "application/json");
      if (!stop || (stop->status != 200 && stop->status != 409))
        ledger.violation("check: stop of resumed run " + id + " answered " +
                         (stop ? std::to_string(stop->status) + ": " + stop->body.substr(0, 200) : "nothing"));
    }
  }

  // Exact hall-of-fame entries re-score to the same chi2 with the project's evaluator.
  std::vector<FameEntry> exact;
  for (const auto& e : ledger.fame())
    if (e.exact && e.width <= s.rescore_max_width) exact.push_back(e);
  std::shuffle(exact.begin(), exact.end(), rng);
  int rescored = 0;
  for (int i = 0; i < s.rescore && i < static_cast<int>(exact.size()); ++i) {
    const FameEntry& e = exact[static_cast<std::size_t>(i)];
    test::SpawnOptions stdout_only;
    stdout_only.capture_stderr = false;
    const auto r = test::run_command(
        {s.exe.string(), "eval", "--exact", "--json", "--width", std::to_string(e.width), e.text}, stdout_only);
    const int code = r.exit_code;
    const std::string& out = r.output;
    const json j = json::parse(out.substr(0, out.find('\n')), nullptr, false);
    if (code != 0 || j.is_discarded() || !j.contains("chi2")) {
      ledger.violation("check: mixforge eval of " + e.program_id + " failed (exit " + std::to_string(code) + "): " +
                       out.substr(0, 200));
      continue;
    }
    ++rescored;
    const double chi2 = j["chi2"].get<double>();
    if (!j.value("exact", false) || std::abs(chi2 - e.chi2) > 1e-9 * std::abs(e.chi2))
      ledger.violation("check: hall-of-fame entry " + e.run_id + "/" + e.program_id + " has chi2 " + g17(e.chi2) +
                       ", an exact re-score gives " + g17(chi2));
  }
  return rescored;
}

}  // namespace mixforge::chaos
