// bench_shutdown: SIGTERM-to-exit of `mixforge serve`, idle and under load.
// Starts the real daemon on a fresh data directory for every trial and measures, in one
// process run, the time from kill(SIGTERM) to waitpid() returning:
//   idle:  no runs, no requests (the baseline);
//   load:  two 32-bit runs evolving (one worker each) while client threads keep exact
//          32-bit evaluations in flight (2^32 inputs each: seconds of scoring; as many
//          as are admitted run, the rest wait or get 429), read pools and best lists, and
//          hold event streams open.
// Prints median and maximum per scenario and the load/idle ratio, checks every exit
// code is 0, and writes the figures to bench/results/shutdown/summary.txt (or --out).
// usage: bench_shutdown [--trials N] [--clients C] [--warmup S] [--exe PATH] [--out FILE]
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "bench_daemon.hpp"

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

using namespace mixforge;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

struct Load {
  std::atomic<bool> stop{false};
  std::atomic<long> requests{0};
  std::vector<std::thread> threads;
  void join() {
    stop = true;
    for (auto& t : threads) t.join();
    threads.clear();
  }
};

void start_load(Load& load, int port, const std::vector<std::string>& runs, int clients) {
  const std::string exact32 =
      R"({"program": "x ^= x >> 16; x *= 0x7feb352d; x ^= x >> 15; x *= 0x846ca68b; x ^= x >> 16;", "exact": true, "matrix": false})";
  for (int i = 0; i < clients; ++i) {
    load.threads.emplace_back([&load, port, runs, exact32, i] {
      httplib::Client c("127.0.0.1", port);
      c.set_read_timeout(60, 0);
      c.set_connection_timeout(2, 0);
      while (!load.stop) {
        const std::string read = "/api/v1/runs/" + runs[i % runs.size()] + (i % 4 == 2 ? "/pool?limit=50" : "/best?limit=10");
        httplib::Result r = i % 4 < 2 ? c.Post("/api/v1/evaluate", exact32, "application/json") : c.Get(read.c_str());
        ++load.requests;
        if (!r) std::this_thread::sleep_for(std::chrono::milliseconds(20));  // the daemon is going
        else if (r->status == 429) std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
    });
  }
  // Two event streams held open.
  for (const auto& id : runs) {
    load.threads.emplace_back([&load, port, id] {
      httplib::Client c("127.0.0.1", port);
      c.set_read_timeout(60, 0);
      while (!load.stop)
        c.Get(("/api/v1/runs/" + id + "/events").c_str(),
              [&](const char*, std::size_t) { return !load.stop.load(); });
    });
  }
}

}  // namespace

int main(int argc, char** argv) {
  int trials = 5, clients = 8;
  double warmup = 3;
  std::string exe = MIXFORGE_EXE, out = "bench/results/shutdown/summary.txt";
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--trials") trials = std::atoi(argv[i + 1]);
    else if (a == "--clients") clients = std::atoi(argv[i + 1]);
    else if (a == "--warmup") warmup = std::atof(argv[i + 1]);
    else if (a == "--exe") exe = argv[i + 1];
    else if (a == "--out") out = argv[i + 1];
  }
  std::vector<double> idle, loaded;
  bool all_zero = true;
  long requests = 0;
  for (int t = 0; t < trials; ++t) {
    {
      bench::BenchDaemon d(exe, "shutdown", {"--log-level", "warn"});
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
      const auto [s, ok] = d.stop(SIGTERM);
      idle.push_back(s);
      all_zero &= ok;
    }
    {
      bench::BenchDaemon d(exe, "shutdown", {"--log-level", "warn"});
      httplib::Client c("127.0.0.1", d.port());
      std::vector<std::string> runs;
      for (int i = 0; i < 2; ++i) {
        auto r = c.Post("/api/v1/runs", R"({"width": 32, "threads": 1, "pool_size": 200})", "application/json");
        if (!r || r->status != 201) {
          std::fprintf(stderr, "cannot create a run: %s\n", r ? r->body.c_str() : "no answer");
          return 1;
        }
        runs.push_back(nlohmann::json::parse(r->body)["id"]);
      }
      Load load;
      start_load(load, d.port(), runs, clients);
      std::this_thread::sleep_for(std::chrono::duration<double>(warmup));
      const auto [s, ok] = d.stop(SIGTERM);
      load.join();
      requests += load.requests;
      loaded.push_back(s);
      all_zero &= ok;
    }
    std::printf("trial %d: idle %.3f s, under load %.3f s\n", t + 1, idle.back(), loaded.back());
    std::fflush(stdout);
  }
  std::ostringstream summary;
  char line[256];
  std::snprintf(line, sizeof line, "SIGTERM to exit, %d trials each (fresh data directory per trial)\n", trials);
  summary << line;
  std::snprintf(line, sizeof line, "idle:       median %.3f s, max %.3f s\n", median(idle),
                *std::max_element(idle.begin(), idle.end()));
  summary << line;
  std::snprintf(line, sizeof line,
                "under load: median %.3f s, max %.3f s (2 runs at 32 bits, %d clients: exact 32-bit "
                "evaluations, pool/best reads, 2 event streams; %ld requests)\n",
                median(loaded), *std::max_element(loaded.begin(), loaded.end()), clients, requests);
  summary << line;
  std::snprintf(line, sizeof line, "ratio load/idle (medians): %.2f\n", median(loaded) / median(idle));
  summary << line;
  summary << "every exit code 0: " << (all_zero ? "yes" : "NO") << "\n";
  std::fputs(summary.str().c_str(), stdout);
  std::error_code ec;
  fs::create_directories(fs::path(out).parent_path(), ec);
  std::ofstream(out) << summary.str();
  return all_zero ? 0 : 1;
}
