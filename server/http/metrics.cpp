#include "server/http/metrics.hpp"

#include <cmath>
#include <cstdio>

namespace mixforge::server {

std::string_view bounded_method(std::string_view method) {
  static constexpr std::string_view known[] = {"GET",     "HEAD",  "POST",    "PUT",  "DELETE",
                                               "OPTIONS", "PATCH", "CONNECT", "TRACE"};
  for (auto k : known)
    if (method == k) return k;
  return "other";
}

void Metrics::observe(const std::string& route, const std::string& method_token, int status, double seconds) {
  const std::string method(bounded_method(method_token));
  if (status < 100 || status > 599) status = 0;
  std::lock_guard lk(mu_);
  ++requests_[{route, method, status}];
  Histogram& h = latency_[{route, method}];
  for (std::size_t i = 0; i < buckets.size(); ++i)
    if (seconds <= buckets[i]) ++h.counts[i];
  ++h.count;
  h.sum += seconds;
}

std::string metric_header(const std::string& name, const std::string& type, const std::string& help) {
  return "# HELP " + name + " " + help + "\n# TYPE " + name + " " + type + "\n";
}

std::string label_value(const std::string& v) {
  std::string out;
  for (char c : v) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '"')
      out += "\\\"";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

std::string format_metric_value(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.15g", v);  // 0.0025 stays "0.0025"
  return buf;
}

std::string Metrics::render_http() const {
  std::lock_guard lk(mu_);
  std::string out = metric_header("mixforge_http_requests_total", "counter", "HTTP requests answered.");
  for (const auto& [k, n] : requests_) {
    const auto& [route, method, status] = k;
    out += "mixforge_http_requests_total{route=\"" + label_value(route) + "\",method=\"" + method + "\",status=\"" +
           std::to_string(status) + "\"} " + std::to_string(n) + "\n";
  }
  out += metric_header("mixforge_http_request_duration_seconds", "histogram",
                       "Time from a parsed request to its response, by route.");
  for (const auto& [k, h] : latency_) {
    const std::string labels = "route=\"" + label_value(k.first) + "\",method=\"" + k.second + "\"";
    for (std::size_t i = 0; i < buckets.size(); ++i)
      out += "mixforge_http_request_duration_seconds_bucket{" + labels + ",le=\"" + format_metric_value(buckets[i]) +
             "\"} " + std::to_string(h.counts[i]) + "\n";
    out +=
        "mixforge_http_request_duration_seconds_bucket{" + labels + ",le=\"+Inf\"} " + std::to_string(h.count) + "\n";
    out += "mixforge_http_request_duration_seconds_sum{" + labels + "} " + format_metric_value(h.sum) + "\n";
    out += "mixforge_http_request_duration_seconds_count{" + labels + "} " + std::to_string(h.count) + "\n";
  }
  return out;
}

}  // namespace mixforge::server
