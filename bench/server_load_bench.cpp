// bench_server_load: HTTP load on the daemon while two runs evolve.
// Starts the real `mixforge serve`, creates two 32-bit runs (one worker thread each, so
// together they use both cores), then measures in one process run:
//   baseline phases (no load) and load phases alternating: B L B L B,
//   load:     paced GET /runs/{id}/best and /runs/{id}/pool at a target rate (default
//             1000 requests/s) over keep-alive connections; client-side latency
//             percentiles over all load phases,
//   evolution throughput in every phase: programs scored per second by both runs,
// and prints the evolution slowdown as 1 - mean(load phases) / mean(baseline phases).
// On a machine shared with other work that ratio is unreliable (more runnable threads
// get the process a larger share of the CPU), so a last load phase runs with both runs
// paused and counts the CPU time the daemon (and this client) spend per request: at rate
// R, serving costs R * cpu_per_request of the machine's cores.
// usage: bench_server_load [--rate R] [--seconds S] [--connections C] [--exe PATH]
#include <signal.h>
#include <sys/resource.h>
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

// Programs scored so far by both runs (the search's work).
double work(httplib::Client& c, const std::vector<std::string>& ids) {
  double sum = 0;
  for (const auto& id : ids) {
    auto r = c.Get(("/api/v1/runs/" + id).c_str());
    sum += nlohmann::json::parse(r->body)["counters"]["scored"].get<double>();
  }
  return sum;
}

double rate_over(httplib::Client& c, const std::vector<std::string>& ids, double seconds) {
  const double t0 = work(c, ids);
  const auto s0 = Clock::now();
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  const double t1 = work(c, ids);
  return (t1 - t0) / std::chrono::duration<double>(Clock::now() - s0).count();
}

// CPU seconds (user + system) used so far by a process, from /proc.
double process_cpu_s(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  std::getline(in, line);
  std::istringstream f(line.substr(line.rfind(')') + 2));
  std::string field;
  double ticks = 0;
  for (int i = 3; f >> field; ++i)
    if (i == 14 || i == 15) ticks += std::stod(field);
  return ticks / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

double self_cpu_s() {
  rusage u{};
  ::getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

double percentile(std::vector<double>& v, double p) {
  if (v.empty()) return 0;
  const std::size_t k = std::min(v.size() - 1, static_cast<std::size_t>(p * (v.size() - 1) + 0.5));
  std::nth_element(v.begin(), v.begin() + static_cast<long>(k), v.end());
  return v[k];
}

}  // namespace

int main(int argc, char** argv) {
  double rate = 1000, seconds = 10;
  int connections = 4;
  std::string exe = MIXFORGE_EXE;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--rate") rate = std::atof(argv[i + 1]);
    else if (a == "--seconds") seconds = std::atof(argv[i + 1]);
    else if (a == "--connections") connections = std::atoi(argv[i + 1]);
    else if (a == "--exe") exe = argv[i + 1];
  }
  bench::BenchDaemon d(exe, "load");
  httplib::Client c("127.0.0.1", d.port());
  std::vector<std::string> ids;
  for (int i = 0; i < 2; ++i) {
    // 16-bit, at most 5 steps, one worker thread per run: every program is scored exactly
    // (2^16 inputs), so the cost of a tournament stays the same and rates are steady (a
    // 32-bit run raises its sample count as it improves, and its exact leader ranking takes
    // all cores for seconds).
    const std::string cfg = R"({"name": "load )" + std::to_string(i) + R"(", "width": 16, "threads": 1, "seed": )" +
                            std::to_string(i + 1) + "}";
    auto r = c.Post("/api/v1/runs", cfg, "application/json");
    if (!r || r->status != 201) {
      std::fprintf(stderr, "cannot create run: %s\n", r ? r->body.c_str() : "no response");
      return 1;
    }
    ids.push_back(nlohmann::json::parse(r->body)["id"]);
  }
  std::printf("daemon on port %d, runs %s %s; warming up 10 s\n", d.port(), ids[0].c_str(), ids[1].c_str());
  std::this_thread::sleep_for(std::chrono::seconds(10));

  std::vector<double> base_rates, load_rates, all;
  long errors_total = 0;
  double load_seconds = 0;
  auto baseline = [&] {
    const double r = rate_over(c, ids, seconds);
    base_rates.push_back(r);
    std::printf("baseline: %.1f programs scored/s (no HTTP load)\n", r);
  };
  auto load = [&] {
    // Paced: request k is due at start + k / rate, spread over the connections.
    std::atomic<long> next{0}, errors{0};
    std::vector<std::vector<double>> lat(static_cast<std::size_t>(connections));
    const long total = static_cast<long>(rate * seconds);
    const auto t_start = Clock::now() + std::chrono::milliseconds(50);
    const double w0 = work(c, ids);
    std::vector<std::thread> threads;
    for (int w = 0; w < connections; ++w) {
      threads.emplace_back([&, w] {
        httplib::Client cl("127.0.0.1", d.port());
        cl.set_keep_alive(true);
        const std::string paths[] = {"/api/v1/runs/" + ids[0] + "/best?limit=10",
                                     "/api/v1/runs/" + ids[1] + "/pool?limit=20&order=chi2",
                                     "/api/v1/runs/" + ids[1] + "/best?limit=10",
                                     "/api/v1/runs/" + ids[0] + "/pool?limit=20&order=chi2"};
        for (long k; (k = next.fetch_add(1)) < total;) {
          const auto due = t_start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(k / rate));
          std::this_thread::sleep_until(due);
          const auto s = Clock::now();
          auto r = cl.Get(paths[k % 4].c_str());
          // Latency from the scheduled time: a late start (the client fell behind) counts.
          const double ms = std::chrono::duration<double, std::milli>(Clock::now() - std::max(s, due)).count();
          if (!r || r->status != 200) ++errors;
          lat[static_cast<std::size_t>(w)].push_back(ms);
        }
      });
    }
    for (auto& t : threads) t.join();
    const double secs = std::chrono::duration<double>(Clock::now() - t_start).count();
    const double r = (work(c, ids) - w0) / secs;
    load_rates.push_back(r);
    load_seconds += secs;
    errors_total += errors.load();
    std::size_t n = 0;
    for (auto& v : lat) {
      n += v.size();
      all.insert(all.end(), v.begin(), v.end());
    }
    std::printf("load:     %.1f programs scored/s while serving %.0f requests/s\n", r, static_cast<double>(n) / secs);
  };
  baseline();
  load();
  baseline();
  load();
  baseline();
  const auto mean = [](const std::vector<double>& v) {
    double s = 0;
    for (double x : v) s += x;
    return s / static_cast<double>(v.size());
  };
  const double base = mean(base_rates), loaded = mean(load_rates);
  std::printf("load: %zu requests in %.2f s = %.0f requests/s (target %.0f), %ld errors, %d connections\n",
              all.size(), load_seconds, static_cast<double>(all.size()) / load_seconds, rate, errors_total,
              connections);
  std::printf("latency ms: p50 %.3f  p90 %.3f  p99 %.3f  max %.3f\n", percentile(all, 0.5),
              percentile(all, 0.9), percentile(all, 0.99), percentile(all, 1.0));
  std::printf("evolution under load: %.3f x baseline (slowdown %.1f %%)\n", loaded / base, 100 * (1 - loaded / base));

  // CPU cost of serving, with the evolution paused.
  for (const auto& id : ids) c.Post(("/api/v1/runs/" + id + "/pause").c_str(), "{}", "application/json");
  std::this_thread::sleep_for(std::chrono::seconds(1));
  const std::size_t before = all.size();
  const double server0 = process_cpu_s(d.pid()), client0 = self_cpu_s();
  load();
  const double requests = static_cast<double>(all.size() - before);
  const double server_us = (process_cpu_s(d.pid()) - server0) / requests * 1e6;
  const double client_us = (self_cpu_s() - client0) / requests * 1e6;
  const unsigned cores = std::thread::hardware_concurrency();
  std::printf("serving cost (runs paused): daemon %.1f us CPU per request, client %.1f us; at %.0f requests/s the "
              "daemon needs %.1f %% of %u cores (with this client: %.1f %%)\n",
              server_us, client_us, rate, 100 * server_us * 1e-6 * rate / cores, cores,
              100 * (server_us + client_us) * 1e-6 * rate / cores);
  return errors_total == 0 ? 0 : 1;
}
