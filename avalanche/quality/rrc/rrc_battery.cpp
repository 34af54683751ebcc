#include "avalanche/quality/rrc/rrc_battery.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <stdexcept>

#include <nlohmann/json.hpp>
#include <tbb/parallel_for.h>

#include "avalanche/stats/chi2_distribution.hpp"
#include "avalanche/counts.hpp"
#include "avalanche/quality/rrc/stream_tests.hpp"

namespace mixforge::avalanche::rrc {
namespace {

constexpr std::size_t chunk = 4096;

// One stream at one length, from its start: its elements in chunks, each chunk fed to the
// tests that still want elements.
std::vector<TestResult> run_stream(const BatchFunction& f, int width, const RrcTransform& t, std::uint64_t length,
                                   const std::atomic<bool>* cancel) {
  auto tests = make_stream_tests({width, length, &f});
  std::erase_if(tests, [](const auto& test) { return test->wanted() == 0; });
  std::uint64_t wanted = 0;
  for (const auto& test : tests) wanted = std::max(wanted, test->wanted());
  std::vector<std::uint64_t> in(chunk), out(chunk);
  for (std::uint64_t first = 0; first < wanted; first += chunk) {
    if (cancel && cancel->load(std::memory_order_relaxed)) throw EvaluationCancelled();
    const std::size_t count = static_cast<std::size_t>(std::min<std::uint64_t>(chunk, wanted - first));
    for (std::size_t i = 0; i < count; ++i) in[i] = apply(t, first + i, width);
    f(in.data(), out.data(), count);
    for (const auto& test : tests)
      if (test->wanted() > first)
        test->feed(out.data(), static_cast<std::size_t>(std::min<std::uint64_t>(count, test->wanted() - first)));
  }
  std::vector<TestResult> results;
  for (const auto& test : tests) test->finish(results);
  return results;
}

// The one-sample KS statistic of p-values against the uniform distribution.
double ks_statistic(std::vector<double> p) {
  std::sort(p.begin(), p.end());
  const double n = static_cast<double>(p.size());
  double d = 0;
  for (std::size_t i = 0; i < p.size(); ++i)
    d = std::max({d, (static_cast<double>(i) + 1) / n - p[i], p[i] - static_cast<double>(i) / n});
  return d;
}

}  // namespace

int max_cap_log2(int width) { return std::max(1, std::min(64, width - 2)); }

RrcReport rrc_battery(const BatchFunction& f, int width, const RrcOptions& o, const std::atomic<bool>* cancel,
                      const RrcProgress& progress) {
  if (width < 8 || width > 64) throw std::invalid_argument("the RRC battery needs a width of 8 to 64 bits");
  const auto t0 = std::chrono::steady_clock::now();
  RrcReport r;
  r.width = width;
  r.cap_log2 = std::min(o.cap_log2, max_cap_log2(width));
  // Narrow functions (under 12 bits) are tested at their cap alone.
  r.first_log2 = std::min(o.first_log2, r.cap_log2);
  if (r.first_log2 < 1 || o.first_log2 > o.cap_log2)
    throw std::invalid_argument("the RRC battery's first length 2^" + std::to_string(o.first_log2) +
                                " must be at least 2^1 and at most its cap 2^" + std::to_string(o.cap_log2));
  const auto transforms = rrc_transforms(width);
  r.streams = static_cast<int>(transforms.size());
  for (int k = r.first_log2; k <= r.cap_log2; ++k) {
    const auto tk = std::chrono::steady_clock::now();
    const std::uint64_t length = std::uint64_t{1} << k;
    std::vector<std::vector<TestResult>> per_stream(transforms.size());
    tbb::parallel_for(std::size_t{0}, transforms.size(),
                      [&](std::size_t s) { per_stream[s] = run_stream(f, width, transforms[s], length, cancel); });
    // Every p-value of this length, then one KS test per test name over the streams.
    std::vector<RrcFailure> all;
    std::map<std::string, std::vector<double>> by_test;
    for (std::size_t s = 0; s < transforms.size(); ++s)
      for (const TestResult& x : per_stream[s]) {
        all.push_back({x.test, transform_name(transforms[s]), x.p, 0});
        by_test[x.test].push_back(x.p);
      }
    for (const auto& [test, ps] : by_test)
      if (ps.size() >= 8)
        all.push_back({"meta:" + test, "all streams", kolmogorov_survival(ks_statistic(ps), ps.size()), 0});
    RrcLength len;
    len.log2 = k;
    len.p_values = static_cast<int>(all.size());
    const auto worst = std::min_element(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.p < b.p; });
    if (worst != all.end()) {
      len.worst = *worst;
      len.worst.p_corrected = std::min(1.0, worst->p * static_cast<double>(all.size()));
    }
    len.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - tk).count();
    r.lengths.push_back(len);
    if (progress) progress(len);
    if (worst != all.end() && len.worst.p < failure_threshold) {
      r.depth_log2 = k;
      r.first_failure = len.worst;
      break;
    }
  }
  if (!r.first_failure) {
    r.depth_log2 = r.cap_log2;
    r.passed_cap = true;
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

namespace {
nlohmann::json failure_json(const RrcFailure& x) {
  return {{"test", x.test}, {"transform", x.transform}, {"p", x.p}, {"p_corrected", x.p_corrected}};
}
}  // namespace

nlohmann::json to_json(const RrcReport& r) {
  nlohmann::json lengths = nlohmann::json::array();
  for (const RrcLength& l : r.lengths)
    lengths.push_back(
        {{"log2", l.log2}, {"p_values", l.p_values}, {"worst", failure_json(l.worst)}, {"seconds", l.seconds}});
  return {{"depth_log2", r.depth_log2},
          {"cap_log2", r.cap_log2},
          {"first_log2", r.first_log2},
          {"passed_cap", r.passed_cap},
          {"first_failure", r.first_failure ? failure_json(*r.first_failure) : nlohmann::json(nullptr)},
          {"streams", r.streams},
          {"failure_threshold", failure_threshold},
          {"lengths", std::move(lengths)},
          {"seconds", r.seconds}};
}

}  // namespace mixforge::avalanche::rrc
