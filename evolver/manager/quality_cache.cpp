#include "evolver/manager/quality_cache.hpp"

#include <chrono>
#include <future>
#include <map>
#include <mutex>
#include <thread>

#include "avalanche/counts.hpp"

#include <nlohmann/json.hpp>

#include "evolver/manager/run_manager.hpp"

namespace mixforge::evolver {

struct SharedComputations::Impl {
  mutable std::mutex mu;
  std::map<std::string, std::shared_future<nlohmann::json>> running;
  std::size_t waiting = 0;
};

SharedComputations::SharedComputations() : impl_(std::make_unique<Impl>()) {}
SharedComputations::~SharedComputations() = default;

std::size_t SharedComputations::waiting() const {
  std::lock_guard lk(impl_->mu);
  return impl_->waiting;
}

std::size_t SharedComputations::running() const {
  std::lock_guard lk(impl_->mu);
  return impl_->running.size();
}

nlohmann::json SharedComputations::run(const std::string& key, const std::function<nlohmann::json()>& compute,
                                       const std::atomic<bool>* cancel) {
  for (;;) {
    std::shared_future<nlohmann::json> theirs;
    std::promise<nlohmann::json> mine;
    {
      std::lock_guard lk(impl_->mu);
      auto it = impl_->running.find(key);
      if (it != impl_->running.end()) {
        theirs = it->second;
        ++impl_->waiting;
      } else {
        impl_->running.emplace(key, mine.get_future().share());
      }
    }
    if (!theirs.valid()) {
      // This caller computes; whatever happens, the key is free again afterwards.
      nlohmann::json result;
      try {
        result = compute();
      } catch (...) {
        mine.set_exception(std::current_exception());
        std::lock_guard lk(impl_->mu);
        impl_->running.erase(key);
        throw;
      }
      mine.set_value(result);
      std::lock_guard lk(impl_->mu);
      impl_->running.erase(key);
      return result;
    }
    struct Waiting {  // the count drops however the wait ends
      Impl& impl;
      ~Waiting() {
        std::lock_guard lk(impl.mu);
        --impl.waiting;
      }
    } waiting{*impl_};
    while (theirs.wait_for(std::chrono::milliseconds(50)) != std::future_status::ready)
      if (cancel && cancel->load()) throw avalanche::EvaluationCancelled();
    try {
      return theirs.get();
    } catch (const avalanche::EvaluationCancelled&) {
      continue;  // the computing caller went away: compute it here
    }
  }
}

std::optional<nlohmann::json> cached_quality_report(RunManager& runs, const std::string& function_id,
                                                    const std::string& key) {
  const auto stored = runs.quality_report(function_id, key);
  if (!stored) return std::nullopt;
  nlohmann::json j = nlohmann::json::parse(stored->report, nullptr, false);
  if (!j.is_object()) return std::nullopt;
  j["cached"] = true;
  j["computed_at"] = stored->computed_at;
  return j;
}

nlohmann::json stored_quality_summary(RunManager& runs, const std::string& function_id) {
  for (const avalanche::BatterySize size : {avalanche::BatterySize::standard, avalanche::BatterySize::quick}) {
    avalanche::QualityOptions o;
    o.size = size;
    const auto cached = cached_quality_report(runs, function_id, avalanche::quality_cache_key(o));
    if (!cached) continue;
    const nlohmann::json& r = *cached;
    nlohmann::json s = {{"size", size == avalanche::BatterySize::standard ? "standard" : "quick"}};
    const auto bic = r.value("bit_independence", nlohmann::json::object());
    s["bit_independence"] = bic.value("applicable", false) ? bic.value("verdict", nlohmann::json()) : nlohmann::json();
    nlohmann::json ho = nlohmann::json::array();
    for (const auto& h : r.value("higher_order", nlohmann::json::array()))
      ho.push_back({{"flipped_bits", h.value("flipped_bits", 0)}, {"verdict", h.value("verdict", "")}});
    s["higher_order"] = std::move(ho);
    const auto b = r.value("counter_battery", nlohmann::json::object());
    s["battery"] = {{"status", b.value("status", "unavailable")},
                    {"passed", b.value("passed", 0)},
                    {"weak", b.value("weak", 0)},
                    {"failed", b.value("failed", 0)}};
    return s;
  }
  return nullptr;
}

nlohmann::json stored_function_quality(RunManager& runs, const avalanche::Evaluator& evaluator,
                                       const mixer::Program& program, const avalanche::QualityOptions& options,
                                       bool refresh, const std::atomic<bool>* cancel, SharedComputations* shared) {
  const std::string id = program.id();
  const std::string key = avalanche::quality_cache_key(options);
  if (!refresh)
    if (auto cached = cached_quality_report(runs, id, key)) return std::move(*cached);
  auto compute = [&] {
    nlohmann::json j = avalanche::to_json(avalanche::assess_quality(evaluator, program, options, cancel));
    const double now =
        std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    runs.put_quality_report(id, key, j.dump(), now);
    j["cached"] = false;
    j["computed_at"] = now;
    return j;
  };
  return shared ? shared->run(id + "|" + key, compute, cancel) : compute();
}

}  // namespace mixforge::evolver
