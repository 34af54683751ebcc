#pragma once
// Prometheus text exposition (format 0.0.4): HTTP request counts and a latency histogram
// per route, plus gauges the caller supplies at scrape time (runs, queues, clients).
#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace mixforge::server {

class Metrics {
 public:
  static constexpr std::array<double, 14> buckets = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
                                                     0.1,    0.25,  0.5,    1,     2.5,  5,     10};
  // route: the matched pattern ("/api/v1/runs/{id}"), or "static" / "misdirected" /
  // "unmatched"; method: any token (labelled through bounded_method).
  void observe(const std::string& route, const std::string& method, int status, double seconds);
  // The HTTP part of the exposition.
  std::string render_http() const;
  // An evaluation stopped while scoring because its client went away.
  void evaluation_cancelled() { cancelled_evaluations_.fetch_add(1, std::memory_order_relaxed); }
  std::uint64_t cancelled_evaluations() const { return cancelled_evaluations_.load(std::memory_order_relaxed); }
  // An event-stream client dropped because it stopped reading.
  void sse_dropped() { sse_dropped_.fetch_add(1, std::memory_order_relaxed); }
  std::uint64_t sse_dropped_total() const { return sse_dropped_.load(std::memory_order_relaxed); }

 private:
  struct Histogram {
    std::array<std::uint64_t, buckets.size()> counts{};
    std::uint64_t count = 0;
    double sum = 0;
  };
  std::atomic<std::uint64_t> cancelled_evaluations_{0}, sse_dropped_{0};
  mutable std::mutex mu_;
  std::map<std::tuple<std::string, std::string, int>, std::uint64_t> requests_;
  std::map<std::pair<std::string, std::string>, Histogram> latency_;
};

// The method as a label: one of the methods HTTP defines, else "other" (a client must
// not be able to make new series by inventing method tokens).
std::string_view bounded_method(std::string_view method);

// Helpers for writing the text format.
std::string metric_header(const std::string& name, const std::string& type, const std::string& help);
std::string label_value(const std::string& v);  // escapes \ " and newlines
std::string format_metric_value(double v);

}  // namespace mixforge::server
