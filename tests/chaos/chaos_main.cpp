// mixforge_chaos: K clients do random things to a real `mixforge serve` (loopback, fresh
// data directory) for T seconds while the daemon is killed (SIGKILL, sometimes SIGTERM)
// and restarted on the same data; invariants are checked after every restart and at the
// end. Prints one summary line; exit 0 only with 0 violations.
//
//   mixforge_chaos [--seconds 60] [--restarts 4] [--clients 16] [--seed S] [--summary FILE]
//
// Environment overrides (for the longer form from CTest): MIXFORGE_CHAOS_SECONDS,
// MIXFORGE_CHAOS_RESTARTS, MIXFORGE_CHAOS_CLIENTS, MIXFORGE_CHAOS_SEED.
// The seed fixes each client's operation sequence, the run configurations and the kill
// schedule; thread timing still varies, so a failure reproduces with the seed in
// likelihood rather than step for step.
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>

#include <CLI/CLI.hpp>

#include "support/process.hpp"
#include "tests/chaos/client.hpp"
#include "tests/chaos/daemon_process.hpp"
#include "tests/chaos/invariants.hpp"
#include "tests/chaos/ledger.hpp"
#include "tests/chaos/target.hpp"

namespace fs = std::filesystem;
using namespace mixforge::chaos;
using Clock = std::chrono::steady_clock;

namespace {

struct Options {
  double seconds = 60;
  int restarts = 4;
  int clients = 16;
  std::uint64_t seed = 0;
  bool seed_given = false;
  std::string exe = MIXFORGE_EXE;
  std::string summary;
  bool keep = false;
  int max_runs = 4;
  long max_rss_mib = 2048;  // bounds on the daemon's resident memory and open descriptors
  int max_fds = 512;
  double sigterm_share = 0.25;  // of the kills; the rest are SIGKILL
};

void env_override(const char* name, double& v) {
  if (const char* s = std::getenv(name)) v = std::stod(s);
}
void env_override(const char* name, int& v) {
  if (const char* s = std::getenv(name)) v = std::stoi(s);
}

double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

struct Supervision {
  int restarts = 0, sigkills = 0, sigterms = 0, crashes = 0, rescored = 0;
  double max_sigterm_s = 0;
  long max_rss_kib = 0;
  int max_fds = 0;
  std::vector<std::pair<long, int>> end_of_life_usage;  // (RSS KiB, fds) before each kill
};

}  // namespace

int main(int argc, char** argv) {
  Options o;
  env_override("MIXFORGE_CHAOS_SECONDS", o.seconds);
  env_override("MIXFORGE_CHAOS_RESTARTS", o.restarts);
  env_override("MIXFORGE_CHAOS_CLIENTS", o.clients);
  if (const char* s = std::getenv("MIXFORGE_CHAOS_SEED")) {
    o.seed = std::stoull(s);
    o.seed_given = true;
  }
  CLI::App app{"Chaos test of mixforge serve: random clients, kills and restarts, invariants"};
  app.add_option("--seconds", o.seconds, "How long the clients run")->check(CLI::Range(1.0, 86400.0));
  app.add_option("--restarts", o.restarts, "How many times the daemon is killed and restarted")->check(CLI::Range(0, 10000));
  app.add_option("--clients", o.clients, "Concurrent clients")->check(CLI::Range(1, 256));
  app.add_option("--seed", o.seed, "Seed (printed; default: random)")->each([&](const std::string&) { o.seed_given = true; });
  app.add_option("--exe", o.exe, "The mixforge binary");
  app.add_option("--summary", o.summary, "Also write the summary line (and the violations) to this file");
  app.add_option("--max-runs", o.max_runs, "The daemon's --max-runs");
  app.add_option("--sigterm-share", o.sigterm_share, "Share of kills done with SIGTERM (else SIGKILL)")
      ->check(CLI::Range(0.0, 1.0));
  app.add_flag("--keep", o.keep, "Keep the data directory and logs");
  CLI11_PARSE(app, argc, argv);
  if (!o.seed_given) o.seed = std::random_device{}() ^ (static_cast<std::uint64_t>(std::random_device{}()) << 32);
  o.seed &= (1ull << 53) - 1;
  std::printf("chaos: seed %llu, %d clients, %.0f s, %d restarts (reproduce: --seed %llu)\n",
              static_cast<unsigned long long>(o.seed), o.clients, o.seconds, o.restarts,
              static_cast<unsigned long long>(o.seed));
  std::fflush(stdout);

  const fs::path work = mixforge::test::fresh_dir("chaos");  // removed below unless kept
  const fs::path data = work / "data";
  fs::create_directories(work / "scratch");

  Ledger ledger;
  Target target;
  std::atomic<pid_t> daemon_pid{-1};
  Supervision sup;
  Rng rng(o.seed);
  CheckSettings checks{o.exe, work / "scratch", o.max_runs, 2, 24};
  DaemonProcess daemon(o.exe, data, work,
                       {"--max-runs", std::to_string(o.max_runs), "--checkpoint-interval", "1"});

  auto bring_up = [&] {
    daemon.start();
    daemon_pid = daemon.pid();
    target.port = daemon.port();
    ++target.epoch;
    target.up = true;
  };
  // Quiet checks: hold the clients, wait for in-flight requests, check, let go.
  auto quiet_check = [&](int rescore, int max_width) {
    target.held = true;
    std::unique_lock lk(target.gate);
    CheckSettings s = checks;
    s.rescore = rescore;
    s.rescore_max_width = max_width;
    sup.rescored += check_api(daemon.port(), s, ledger, rng);
    target.held = false;
  };
  auto sample_usage = [&] {
    if (auto u = daemon.usage()) {
      sup.max_rss_kib = std::max(sup.max_rss_kib, u->rss_kib);
      sup.max_fds = std::max(sup.max_fds, u->fds);
      if (u->rss_kib > o.max_rss_mib * 1024)
        ledger.violation("daemon RSS " + std::to_string(u->rss_kib / 1024) + " MiB exceeds " +
                         std::to_string(o.max_rss_mib) + " MiB");
      if (u->fds > o.max_fds)
        ledger.violation("daemon has " + std::to_string(u->fds) + " open file descriptors (bound " +
                         std::to_string(o.max_fds) + ")");
      return u;
    }
    return std::optional<DaemonProcess::Usage>{};
  };

  // The driver bounds itself: a hang anywhere (a check waiting on a stuck daemon) ends
  // the process after the planned time plus five minutes.
  std::thread([&daemon_pid, limit = o.seconds + 300] {
    std::this_thread::sleep_for(std::chrono::duration<double>(limit));
    std::fprintf(stderr, "chaos: still running %.0f s after the start: giving up\n", limit);
    if (daemon_pid > 0) ::kill(daemon_pid, SIGKILL);
    std::_Exit(3);
  }).detach();

  int exit_code = 0;
  bool keep_work = false;
  const auto t_start = Clock::now();
  std::vector<std::unique_ptr<Client>> clients;
  std::vector<std::thread> threads;
  try {
    bring_up();
    for (int i = 0; i < o.clients; ++i) {
      clients.push_back(std::make_unique<Client>(i, o.seed, target, ledger));
      threads.emplace_back([c = clients.back().get()] { c->run(); });
    }

    // Kill moments: one in each of `restarts` equal slices of the run, at a random point
    // of its middle 80 %.
    std::vector<double> kill_at;
    for (int i = 0; i < o.restarts; ++i) {
      const double slice = o.seconds / o.restarts;
      kill_at.push_back(slice * (i + std::uniform_real_distribution<double>(0.1, 0.9)(rng)));
    }
    std::size_t next_kill = 0;
    int stall_dumps = 0;
    auto last_sample = Clock::now() - std::chrono::seconds(1);
    std::optional<DaemonProcess::Usage> last_usage;
    while (since(t_start) < o.seconds) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      if (auto e = daemon.poll()) {
        ++sup.crashes;
        target.up = false;
        ++target.epoch;
        ledger.violation("daemon exited without being killed (" + e->describe() + "); log: " + daemon.log_tail(1500));
        bring_up();
        continue;
      }
      if (target.stalled.exchange(false) && stall_dumps < 3) {
        const fs::path f = work / ("stall-" + std::to_string(++stall_dumps) + ".txt");
        daemon.dump_threads(f);
        std::fprintf(stderr, "chaos: the daemon stopped answering: its threads are in %s\n", f.c_str());
        keep_work = true;
      }
      if (since(last_sample) >= 1.0) {
        last_sample = Clock::now();
        if (auto u = sample_usage()) last_usage = u;
      }
      if (next_kill < kill_at.size() && since(t_start) >= kill_at[next_kill]) {
        ++next_kill;
        if (last_usage) sup.end_of_life_usage.emplace_back(last_usage->rss_kib, last_usage->fds);
        const bool term = std::uniform_real_distribution<double>(0, 1)(rng) < o.sigterm_share;
        target.up = false;
        ++target.epoch;
        if (term) {
          ++sup.sigterms;
          const fs::path dump = work / ("sigterm-hang-" + std::to_string(sup.restarts + 1) + ".txt");
          const auto e = daemon.stop(SIGTERM, 60, dump);
          if (fs::exists(dump)) std::fprintf(stderr, "chaos: SIGTERM hang: the daemon's threads are in %s\n", dump.c_str());
          sup.max_sigterm_s = std::max(sup.max_sigterm_s, e.seconds);
          if (!e.exited || e.signal || e.code != 0)
            ledger.violation("SIGTERM: the daemon did not exit 0 within 60 s (" + e.describe() + ", " +
                             std::to_string(e.seconds) + " s); log: " + daemon.log_tail(1500));
        } else {
          ++sup.sigkills;
          daemon.stop(SIGKILL, 60);
        }
        check_database(data, checks, ledger);
        bring_up();
        ++sup.restarts;
        quiet_check(2, 24);
        std::printf("chaos: %.1f s: restart %d (%s) checked, %zu violations so far\n", since(t_start), sup.restarts,
                    term ? "SIGTERM" : "SIGKILL", ledger.violation_count());
        std::fflush(stdout);
      }
    }
    target.done = true;
    for (auto& t : threads) t.join();
    if (auto e = daemon.poll()) {
      ++sup.crashes;
      ledger.violation("daemon exited without being killed (" + e->describe() + "); log: " + daemon.log_tail(1500));
      bring_up();
    }
    if (auto u = sample_usage()) sup.end_of_life_usage.emplace_back(u->rss_kib, u->fds);
    // The end: every check once more with a live daemon, wider exact re-scores, then a
    // clean SIGTERM and the database checks.
    quiet_check(6, 32);
    target.up = false;
    ++target.epoch;
    const auto e = daemon.stop(SIGTERM, 60, work / "sigterm-hang-final.txt");
    ++sup.sigterms;
    sup.max_sigterm_s = std::max(sup.max_sigterm_s, e.seconds);
    if (!e.exited || e.signal || e.code != 0)
      ledger.violation("final SIGTERM: the daemon did not exit 0 within 60 s (" + e.describe() + ")");
    check_database(data, checks, ledger);
  } catch (const std::exception& ex) {
    ledger.violation(std::string("chaos driver: ") + ex.what());
    target.done = true;
    target.held = false;
    for (auto& t : threads)
      if (t.joinable()) t.join();
    exit_code = 2;
  }

  const auto t = ledger.totals();
  std::ostringstream line;
  line << "chaos: seed=" << o.seed << " clients=" << o.clients << " seconds=" << static_cast<long>(since(t_start))
       << " ops=" << t.ops << " answered=" << t.answered << " restarts=" << sup.restarts << " (SIGKILL "
       << sup.sigkills << ", SIGTERM " << sup.sigterms << ", crashes " << sup.crashes
       << ") violations=" << ledger.violation_count() << " no_answer_during_kills=" << t.expected_errors;
  {
    const auto runs = ledger.runs();
    const auto deleted = std::count_if(runs.begin(), runs.end(), [](const auto& r) { return r.second.fate == Fate::deleted; });
    const auto fame = ledger.fame();
    const auto exact = std::count_if(fame.begin(), fame.end(), [](const FameEntry& e) { return e.exact; });
    line << " runs=" << runs.size() << " (deleted " << deleted << ") fame_entries=" << fame.size() << " (exact " << exact
         << ", re-scored " << sup.rescored << ")";
  }
  line << " statuses={";
  bool first = true;
  for (const auto& [s, n] : t.statuses) {
    line << (first ? "" : ",") << s << ":" << n;
    first = false;
  }
  char buf[160];
  std::snprintf(buf, sizeof buf, "} rss_max=%.0fMiB fds_max=%d sigterm_max=%.2fs", sup.max_rss_kib / 1024.0,
                sup.max_fds, sup.max_sigterm_s);
  line << buf << " latency_ms(p50/p99)={";
  first = true;
  for (const auto& [op, v] : t.latency) {
    std::snprintf(buf, sizeof buf, "%s%s:%.1f/%.1f", first ? "" : ",", op.c_str(), std::get<1>(v), std::get<2>(v));
    line << buf;
    first = false;
  }
  line << "}";
  std::printf("%s\n", line.str().c_str());
  if (!sup.end_of_life_usage.empty()) {
    std::printf("chaos: daemon RSS MiB / open fds before each kill and at the end:");
    for (const auto& [rss, fds] : sup.end_of_life_usage) std::printf(" %.0f/%d", rss / 1024.0, fds);
    std::printf("\n");
  }
  const auto violations = ledger.violations();
  for (const auto& v : violations) std::printf("chaos: violation: %s\n", v.c_str());
  if (!o.summary.empty()) {
    fs::create_directories(fs::absolute(o.summary).parent_path());
    std::ofstream out(o.summary);
    out << line.str() << "\n";
    for (const auto& v : violations) out << "violation: " << v << "\n";
  }
  if (!violations.empty()) {
    std::printf("chaos: FAILED with %zu violations; data and logs kept in %s (reproduce: --seed %llu)\n",
                violations.size(), work.c_str(), static_cast<unsigned long long>(o.seed));
    return exit_code ? exit_code : 1;
  }
  if (!o.keep && !keep_work) {
    std::error_code ec;
    fs::remove_all(work, ec);
  } else {
    std::printf("chaos: data and logs in %s\n", work.c_str());
  }
  return exit_code;
}
