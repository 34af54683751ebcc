// GET /api/v1/functions/{id}/quality against the real daemon (every answer checked against
// the OpenAPI document by the client's logger): computed once, then cached in the database
// (also across a restart), refresh, bad parameters, unknown ids; a 32-bit report runs the
// dieharder battery; cached reports take no scoring slot while uncached ones are admitted
// like POST /evaluate (429 when the slots are full; timing held by a gate, not the clock).
#include <gtest/gtest.h>

#include <future>

#include <nlohmann/json.hpp>

#include "avalanche/quality/counter_battery.hpp"
#include "tests/server/daemon_process.hpp"
#include "tests/server/in_process_daemon.hpp"

namespace mixforge::test {
namespace {

nlohmann::json get_json(httplib::Client& c, const std::string& path, int status) {
  auto r = c.Get(path.c_str());
  EXPECT_TRUE(r) << path;
  if (!r) return {};
  EXPECT_EQ(r->status, status) << path << ": " << r->body;
  return nlohmann::json::parse(r->body, nullptr, false);
}

// The measures only: timings and the cache fields differ between computations.
nlohmann::json quality_measures(nlohmann::json j) {
  for (const char* k : {"seconds", "cached", "computed_at"}) j.erase(k);
  if (j["counter_battery"].contains("transforms")) {
    j["counter_battery"].erase("seconds");
    for (auto& t : j["counter_battery"]["transforms"]) t.erase("seconds");
  }
  return j;
}

// The best function of a short run of this width (hall of fame, else the run's best list).
std::string evolved_function(httplib::Client& c, int width, int tournaments) {
  auto r = c.Post("/api/v1/runs",
                  small_run_json(width, ", \"budget\": {\"tournaments\": " + std::to_string(tournaments) + "}"),
                  "application/json");
  EXPECT_TRUE(r && r->status == 201) << (r ? r->body : "no answer");
  if (!r || r->status != 201) return {};
  const std::string run = nlohmann::json::parse(r->body)["id"];
  std::string id;
  EXPECT_TRUE(eventually([&] {
    auto b = c.Get(("/api/v1/runs/" + run + "/best?limit=1").c_str());
    if (!b || b->status != 200) return false;
    const auto items = nlohmann::json::parse(b->body)["items"];
    if (items.empty()) return false;
    id = items[0]["id"];
    return true;
  }));
  return id;
}

}  // namespace

TEST(QualityE2E, ComputedOnceThenCachedAcrossRestartsRefreshAndBadInput) {
  Daemon d;
  auto c = d.client();
  const std::string id = evolved_function(c, 8, 300);
  ASSERT_FALSE(id.empty());
  const std::string path = "/api/v1/functions/" + id + "/quality";
  // The hall of fame shows the verdicts of a cached report, never computes one.
  auto fame_quality = [&] {
    const auto hof = get_json(c, "/api/v1/hall-of-fame?width=8&limit=1000", 200);
    nlohmann::json mine;
    int with = 0;
    for (const auto& e : hof["items"]) {
      if (e["id"] == id) mine = e["quality"];
      with += !e["quality"].is_null();
    }
    EXPECT_EQ(with, mine.is_null() ? 0 : 1);
    return mine;
  };
  EXPECT_TRUE(fame_quality().is_null());

  const auto first = get_json(c, path + "?size=quick", 200);
  EXPECT_FALSE(first["cached"].get<bool>());
  EXPECT_EQ(first["function"]["id"], id);
  EXPECT_EQ(first["function"]["width"], 8);
  EXPECT_EQ(first["options"]["size"], "quick");
  EXPECT_TRUE(first["avalanche"]["exact"].get<bool>());
  EXPECT_TRUE(first["bit_independence"]["applicable"].get<bool>());
  EXPECT_EQ(first["higher_order"].size(), 2u);
  EXPECT_EQ(first["counter_battery"]["status"], "skipped");
  EXPECT_NE(first["counter_battery"]["reason"].get<std::string>().find("width 8 < 32"), std::string::npos);

  // The second read comes from the database: the same report, marked cached.
  const auto second = get_json(c, path + "?size=quick", 200);
  EXPECT_TRUE(second["cached"].get<bool>());
  EXPECT_EQ(second["computed_at"], first["computed_at"]);
  EXPECT_EQ(quality_measures(second), quality_measures(first));
  const auto quick = fame_quality();
  ASSERT_TRUE(quick.is_object()) << "the best of the run is in the hall of fame";
  EXPECT_EQ(quick["size"], "quick");
  EXPECT_EQ(quick["bit_independence"], first["bit_independence"]["verdict"]);
  ASSERT_EQ(quick["higher_order"].size(), 2u);
  EXPECT_EQ(quick["higher_order"][1]["flipped_bits"], 3);
  EXPECT_EQ(quick["higher_order"][1]["verdict"], first["higher_order"][1]["verdict"]);
  EXPECT_EQ(quick["battery"]["status"], "skipped");
  // Other options are another report (the standard size is the default).
  EXPECT_FALSE(get_json(c, path, 200)["cached"].get<bool>());
  EXPECT_TRUE(get_json(c, path + "?size=standard", 200)["cached"].get<bool>());
  EXPECT_EQ(fame_quality()["size"], "standard");  // the standard report is preferred
  // refresh computes again: the same measures (deterministic), a new report.
  const auto refreshed = get_json(c, path + "?size=quick&refresh=true", 200);
  EXPECT_FALSE(refreshed["cached"].get<bool>());
  EXPECT_EQ(quality_measures(refreshed), quality_measures(first));
  EXPECT_EQ(c.Head((path + "?size=quick").c_str())->status, 200);

  // Bad parameters name themselves; unknown and malformed ids are 404.
  EXPECT_EQ(get_json(c, path + "?size=huge", 400)["field"], "?size");
  EXPECT_EQ(get_json(c, path + "?refresh=maybe", 400)["field"], "?refresh");
  EXPECT_EQ(get_json(c, path + "?samples=5", 400)["field"], "?samples");
  EXPECT_EQ(get_json(c, "/api/v1/functions/0123456789abcdef/quality", 404)["type"],
            "https://mixforge.invalid/problems/function-not-found");
  get_json(c, "/api/v1/functions/XYZ/quality", 404);

  // The RRC depth is one more part, asked for with rrc=true and cached per cap; an 8-bit
  // function is tested at its cap, 2^6, alone.
  const auto rrc = get_json(c, path + "?size=quick&rrc=true", 200);
  EXPECT_FALSE(rrc["cached"].get<bool>());
  EXPECT_TRUE(rrc["options"]["rrc"].get<bool>());
  EXPECT_EQ(rrc["rrc"]["cap_log2"], 6);
  EXPECT_EQ(rrc["rrc"]["streams"], 32);
  EXPECT_EQ(rrc["rrc"]["lengths"].size(), 1u);
  EXPECT_EQ(rrc["bit_independence"], first["bit_independence"]);  // the other parts are the same
  EXPECT_TRUE(get_json(c, path + "?size=quick&rrc=true", 200)["cached"].get<bool>());
  EXPECT_FALSE(get_json(c, path + "?size=quick&rrc=true&rrc_cap_log2=12", 200)["cached"].get<bool>());
  EXPECT_TRUE(get_json(c, path + "?size=quick", 200)["rrc"].is_null());
  EXPECT_EQ(get_json(c, path + "?rrc=true&rrc_cap_log2=5", 400)["field"], "?rrc_cap_log2");
  EXPECT_EQ(get_json(c, path + "?rrc_cap_log2=20", 400)["field"], "?rrc_cap_log2");
  EXPECT_EQ(get_json(c, path + "?rrc=perhaps", 400)["field"], "?rrc");

  // Kept in the database: still cached after a restart.
  EXPECT_EQ(d.terminate().first, 0);
  d.start();
  auto c2 = d.client();
  const auto after = get_json(c2, path + "?size=quick", 200);
  EXPECT_TRUE(after["cached"].get<bool>());
  EXPECT_EQ(quality_measures(after), quality_measures(refreshed));
}

TEST(QualityE2E, ThirtyTwoBitReportRunsTheCounterBattery) {
  Daemon d;
  auto c = d.client(180);
  const std::string id = evolved_function(c, 32, 20);
  ASSERT_FALSE(id.empty());
  const auto r = get_json(c, "/api/v1/functions/" + id + "/quality?size=quick", 200);
  EXPECT_EQ(r["function"]["width"], 32);
  const auto& b = r["counter_battery"];
  if (!avalanche::find_dieharder()) {
    EXPECT_EQ(b["status"], "unavailable");
    GTEST_SKIP() << "dieharder is not installed (Debian package dieharder): " << b.dump();
  }
  ASSERT_EQ(b["status"], "ran") << b.dump();
  EXPECT_EQ(b["transforms"].size(), 6u);
  EXPECT_EQ(b["tests"].size(), avalanche::battery_tests(avalanche::BatterySize::quick).size());
  int results = 0;
  for (const auto& t : b["transforms"]) results += static_cast<int>(t["results"].size());
  EXPECT_EQ(b["passed"].get<int>() + b["weak"].get<int>() + b["failed"].get<int>(), results);
}

TEST(QualityE2E, CachedReportsTakeNoScoringSlotUncachedOnesAreAdmitted) {
  // One scoring slot, nothing may wait; every job is held by a gate of its own.
  Gate gates[2];
  std::atomic<int> next{0};
  InProcessDaemon d([&](server::DaemonOptions& o) {
    o.limits.max_concurrent_evaluations = 1;
    o.limits.max_queued_exact = 1;
    o.before_scoring = [&](const std::atomic<bool>& cancelled) { gates[std::min(next++, 1)].pass(cancelled); };
  });
  auto c = d.client();
  const std::string id = evolved_function(c, 8, 300);
  ASSERT_FALSE(id.empty());
  const std::string path = "/api/v1/functions/" + id + "/quality";

  auto first = std::async(std::launch::async, [&] { return d.client().Get((path + "?size=quick").c_str()); });
  ASSERT_TRUE(gates[0].wait_entered(1));
  // The slot is taken: another uncached report (8 bits: not costly, may not wait) is refused.
  auto refused = c.Get((path + "?size=standard").c_str());
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 429) << refused->body;
  EXPECT_FALSE(refused->get_header_value("Retry-After").empty());
  gates[0].release();
  auto a = first.get();
  ASSERT_TRUE(a);
  ASSERT_EQ(a->status, 200) << a->body;
  EXPECT_FALSE(nlohmann::json::parse(a->body)["cached"].get<bool>());

  // Hold the slot again with another report; the cached one is answered meanwhile.
  auto held = std::async(std::launch::async, [&] { return d.client().Get((path + "?size=standard").c_str()); });
  ASSERT_TRUE(gates[1].wait_entered(1));
  EXPECT_EQ(d.metric("mixforge_evaluations_running"), 1);
  const auto cached = get_json(c, path + "?size=quick", 200);
  EXPECT_TRUE(cached["cached"].get<bool>());
  // refresh needs the slot.
  auto busy = c.Get((path + "?size=quick&refresh=true").c_str());
  ASSERT_TRUE(busy);
  EXPECT_EQ(busy->status, 429);
  gates[1].release();
  auto h = held.get();
  ASSERT_TRUE(h);
  EXPECT_EQ(h->status, 200) << h->body;
}

}  // namespace mixforge::test
