// serve --device auto (the default) with a GPU that fails while scoring: the daemon and
// its runs score on the CPU, /healthz and /metrics say so and why, and the log has one
// warning. The failure is injected (MIXFORGE_FAULT_GPU=load: every PTX module load fails
// as a CUDA error would); without a GPU the daemon selects the stand-in GPU made for it.
#include <gtest/gtest.h>

#include <cstdlib>

#include "avalanche/evaluator.hpp"
#include "mixer/text_form.hpp"
#include "server/api/schema_validator.hpp"
#include "tests/server/daemon_process.hpp"

namespace mixforge::test {
namespace {

const server::SchemaSet& fallback_schemas() {
  static const server::SchemaSet s;
  return s;
}

// The daemon inherits this process's environment when it starts.
class FaultyGpuDaemon {
 public:
  explicit FaultyGpuDaemon(const std::string& fault) {
    setenv("MIXFORGE_FAULT_GPU", fault.c_str(), 1);
    try {
      daemon_.emplace();
    } catch (...) {
      unsetenv("MIXFORGE_FAULT_GPU");
      throw;
    }
    unsetenv("MIXFORGE_FAULT_GPU");
  }
  Daemon& operator*() { return *daemon_; }
  Daemon* operator->() { return &*daemon_; }

 private:
  std::optional<Daemon> daemon_;
};

nlohmann::json health_now(httplib::Client& c) {
  auto r = c.Get("/healthz");
  EXPECT_TRUE(r);
  if (!r) return {};
  const auto j = nlohmann::json::parse(r->body);
  const auto issues = fallback_schemas().check("health.schema.json", j);
  EXPECT_TRUE(issues.empty()) << (issues.empty() ? "" : issues[0].pointer + " " + issues[0].message) << "\n"
                              << j.dump();
  return j;
}

std::size_t occurrences(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

const std::string injected_load_failure = "cuda: cuModuleLoadDataEx failed: an injected fault (MIXFORGE_FAULT_GPU=load)";

TEST(DeviceFallbackE2E, EvaluateScoresOnTheCpuAndHealthzSaysWhy) {
  FaultyGpuDaemon d("load");
  auto c = d->client();
  const auto before = health_now(c);
  ASSERT_EQ(before["device"]["kind"], "gpu") << before.dump();
  EXPECT_FALSE(before["device"].contains("fallback"));
  const std::string gpu_name = before["device"]["name"];

  // 24 bits: exact counts this wide are the GPU's.
  const std::string text = "x ^= x >> 12; x *= 0x9e3779; x ^= x >> 11; x *= 0x2c1b3d; x ^= x >> 13";
  const auto cpu = avalanche::Evaluator::with_own_engine();
  const avalanche::Score want = cpu->exact(mixer::parse_program(text, {.width = 24}));
  const nlohmann::json req = {{"program", text}, {"width", 24}, {"exact", true}, {"matrix", false}};
  for (int call = 0; call < 2; ++call) {
    auto r = c.Post("/api/v1/evaluate", req.dump(), "application/json");
    ASSERT_TRUE(r);
    ASSERT_EQ(r->status, 200) << r->body;
    const auto out = nlohmann::json::parse(r->body);
    EXPECT_EQ(out["score"]["chi2"].get<double>(), want.chi2) << "the CPU's counts";
    EXPECT_TRUE(out["score"]["exact"].get<bool>());
  }

  const auto after = health_now(c);
  EXPECT_EQ(after["device"]["kind"], "cpu") << after.dump();
  EXPECT_EQ(after["device"]["name"], "cpu");
  EXPECT_EQ(after["device"]["fallback"], (nlohmann::json{{"from", gpu_name}, {"reason", injected_load_failure}}));
  EXPECT_NE(after["device"]["note"].get<std::string>().find(injected_load_failure), std::string::npos);
  auto m = c.Get("/metrics");
  ASSERT_TRUE(m);
  EXPECT_NE(m->body.find("mixforge_device_info{kind=\"cpu\",name=\"cpu\"} 1"), std::string::npos);

  const std::string log = d->log();
  EXPECT_EQ(occurrences(log, "device.fallback"), 1u) << log;
  const auto line = log.substr(log.rfind('\n', log.find("device.fallback")) + 1);
  EXPECT_NE(line.find(" warning device.fallback "), std::string::npos) << line;
  EXPECT_NE(line.find("MIXFORGE_FAULT_GPU=load"), std::string::npos) << line;
}

TEST(DeviceFallbackE2E, ARunScoresOnTheCpuAfterTheGpuFails) {
  // A 24-bit run's leaders are scored exactly: by the run manager's evaluator, which
  // shares the daemon's record of the GPU.
  FaultyGpuDaemon d("load");
  auto c = d->client();
  // Leaders every 20 tournaments, so the first exact score comes at once: at the default
  // 200, a ThreadSanitizer build (5 tournaments/s) had none within the minute it waits.
  nlohmann::json run = nlohmann::json::parse(small_run_json(24));
  run["precision"]["leader_interval"] = 20;
  auto created = c.Post("/api/v1/runs", run.dump(), "application/json");
  ASSERT_TRUE(created);
  ASSERT_EQ(created->status, 201) << created->body;
  const std::string id = nlohmann::json::parse(created->body)["id"];
  nlohmann::json detail;
  ASSERT_TRUE(eventually([&] {
    auto r = c.Get(("/api/v1/runs/" + id).c_str());
    if (!r || r->status != 200) return false;
    detail = nlohmann::json::parse(r->body);
    return detail["best"].is_object() && detail["best"]["exact"].get<bool>();
  })) << detail.dump() << "\n" << d->log();
  EXPECT_EQ(detail["state"], "running") << detail.dump();
  const auto h = health_now(c);
  EXPECT_EQ(h["device"]["kind"], "cpu") << h.dump();
  EXPECT_EQ(h["device"]["fallback"]["reason"], injected_load_failure);
  EXPECT_EQ(occurrences(d->log(), "device.fallback"), 1u) << d->log();
}

}  // namespace
}  // namespace mixforge::test
