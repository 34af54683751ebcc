#include "tests/chaos/ledger.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

namespace mixforge::chaos {

namespace {
const auto program_start = std::chrono::steady_clock::now();

double percentile(std::vector<float> v, double p) {
  if (v.empty()) return 0;
  const std::size_t k = std::min(v.size() - 1, static_cast<std::size_t>(std::ceil(p * v.size())) - (p > 0 ? 1 : 0));
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
  return v[k];
}

template <class Map>
auto random_element(const Map& m, Rng& rng) {
  auto it = m.begin();
  std::advance(it, static_cast<std::ptrdiff_t>(std::uniform_int_distribution<std::size_t>(0, m.size() - 1)(rng)));
  return it;
}
}  // namespace

void Ledger::violation(const std::string& what) {
  const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - program_start).count();
  std::lock_guard lk(mu_);
  violations_.push_back(what);
  std::fprintf(stderr, "chaos: VIOLATION at %.1f s: %s\n", t, what.c_str());
}

std::size_t Ledger::violation_count() const {
  std::lock_guard lk(mu_);
  return violations_.size();
}

std::vector<std::string> Ledger::violations() const {
  std::lock_guard lk(mu_);
  return violations_;
}

void Ledger::run_created(const std::string& id, int width) {
  std::lock_guard lk(mu_);
  runs_[id] = {width, Fate::alive};
}

void Ledger::create_unacknowledged() {
  std::lock_guard lk(mu_);
  ++unacknowledged_creates_;
}

void Ledger::run_deleted(const std::string& id) {
  std::lock_guard lk(mu_);
  runs_[id].fate = Fate::deleted;
}

void Ledger::delete_unacknowledged(const std::string& id) {
  std::lock_guard lk(mu_);
  auto it = runs_.find(id);
  if (it != runs_.end() && it->second.fate == Fate::alive) it->second.fate = Fate::maybe_deleted;
}

void Ledger::settle(const std::map<std::string, int>& listed) {
  std::lock_guard lk(mu_);
  for (auto& [id, r] : runs_)
    if (r.fate == Fate::maybe_deleted) r.fate = listed.count(id) ? Fate::alive : Fate::deleted;
  for (const auto& [id, width] : listed)
    if (!runs_.count(id)) runs_[id] = {width, Fate::alive};  // an unacknowledged create that committed
  unacknowledged_creates_ = 0;
}

std::map<std::string, RunRecord> Ledger::runs() const {
  std::lock_guard lk(mu_);
  return runs_;
}

int Ledger::unacknowledged_creates() const {
  std::lock_guard lk(mu_);
  return unacknowledged_creates_;
}

std::optional<std::string> Ledger::pick_run(Rng& rng) const {
  std::lock_guard lk(mu_);
  if (runs_.empty()) return std::nullopt;
  // A few tries for a live run; a deleted one now and then is fine (404 expected).
  for (int i = 0; i < 4; ++i) {
    auto it = random_element(runs_, rng);
    if (it->second.fate != Fate::deleted || i == 3) return it->first;
  }
  return std::nullopt;
}

void Ledger::fame_reported(const FameEntry& e) {
  std::string problem;
  {
    std::lock_guard lk(mu_);
    auto [it, fresh] = fame_.try_emplace({e.run_id, e.program_id}, e);
    if (!fresh) {
      FameEntry& old = it->second;
      if (old.exact && (!e.exact || old.chi2 != e.chi2)) {
        char buf[160];
        std::snprintf(buf, sizeof buf, "exact chi2 %.17g, now %s chi2 %.17g", old.chi2, e.exact ? "exact" : "sampled",
                      e.chi2);
        problem = "hall-of-fame entry " + e.run_id + "/" + e.program_id + " changed: " + buf;
      } else if (!old.exact && e.exact) {
        old = e;  // a sampled entry may gain its exact score
      }
    }
  }
  if (!problem.empty()) violation(problem);
}

std::vector<FameEntry> Ledger::fame() const {
  std::lock_guard lk(mu_);
  std::vector<FameEntry> out;
  for (const auto& [k, e] : fame_) out.push_back(e);
  return out;
}

std::optional<FameEntry> Ledger::pick_fame(Rng& rng) const {
  std::lock_guard lk(mu_);
  if (fame_.empty()) return std::nullopt;
  return random_element(fame_, rng)->second;
}

void Ledger::record(const std::string& op, int status, double seconds) {
  std::lock_guard lk(mu_);
  ++ops_;
  ++statuses_[status];
  latency_ms_[op].push_back(static_cast<float>(seconds * 1e3));
}

void Ledger::transport_error(const std::string& op, bool expected) {
  std::lock_guard lk(mu_);
  ++ops_;
  ++(expected ? expected_errors_ : unexpected_errors_);
}

Ledger::Totals Ledger::totals() const {
  std::lock_guard lk(mu_);
  Totals t;
  t.ops = ops_;
  t.expected_errors = expected_errors_;
  t.unexpected_errors = unexpected_errors_;
  t.statuses = statuses_;
  for (const auto& [s, n] : statuses_) t.answered += n;
  for (const auto& [op, v] : latency_ms_) t.latency[op] = {v.size(), percentile(v, 0.50), percentile(v, 0.99)};
  return t;
}

}  // namespace mixforge::chaos
