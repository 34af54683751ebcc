// /api/v1/bakes against the real daemon: a bake runs to the end and serves its files, its
// progress streams as SSE, DELETE cancels a running bake and frees the slot, the queue is
// bounded (429), bad requests name their field, mixers come from stored functions and from
// a run's family, an uploaded OBJ bakes and a malformed .map fails naming line and column,
// and finished bakes outlive the daemon while an interrupted one comes back failed.
// Without the baker in the build (the sanitizer presets) every route answers 501.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/server/daemon_process.hpp"
#include "tests/server/sse_reader.hpp"

namespace mixforge::test {
namespace {

using nlohmann::json;

#ifdef MIXFORGE_WITH_BAKER

// A bake small enough for a test: the Cornell box at 4 spp and one bounce, coarse texels.
const char* const small_bake = R"({"scene": "cornell", "spp": 4, "bounces": 1, "texel": 0.1})";
// A bake that runs for minutes unless cancelled.
const char* const long_bake = R"({"scene": "cornell", "spp": 4096, "bounces": 16, "texel": 0.02})";

json post_bake(httplib::Client& c, const std::string& body, int want = 202) {
  auto r = c.Post("/api/v1/bakes", body, "application/json");
  EXPECT_TRUE(r);
  if (!r) return {};
  EXPECT_EQ(r->status, want) << r->body;
  if (want == 202) {
    EXPECT_EQ(r->get_header_value("Location"), "/api/v1/bakes/" + json::parse(r->body)["id"].get<std::string>());
  }
  return json::parse(r->body);
}

json get_bake(httplib::Client& c, const std::string& id) {
  auto r = c.Get(("/api/v1/bakes/" + id).c_str());
  if (!r || r->status != 200) return {};
  return json::parse(r->body);
}

// Waits until the bake's state is one of `states`; returns the job.
json wait_for(httplib::Client& c, const std::string& id, std::initializer_list<const char*> states, double timeout_s = 120) {
  json job;
  eventually(
      [&] {
        job = get_bake(c, id);
        if (job.is_null()) return false;
        for (const char* s : states)
          if (job["state"] == s) return true;
        return false;
      },
      timeout_s);
  return job;
}

// The request's light sampling reaches the baker and the report says what ran: the
// Cornell light by MIS when auto chooses, hemisphere rays alone when asked for.
TEST(BakesE2E, LightSamplingIsTheRequestsChoice) {
  Daemon d;
  auto c = d.client();
  for (const char* mode : {"auto", "hemisphere"}) {
    const std::string body = std::string(R"({"scene": "cornell", "spp": 4, "bounces": 0, "texel": 0.1)") +
                             (std::string(mode) == "auto" ? "}" : R"(, "light_sampling": "hemisphere"})");
    const json job = post_bake(c, body);
    EXPECT_EQ(job["request"]["light_sampling"], mode);
    const json done = wait_for(c, job["id"].get<std::string>(), {"done", "failed"});
    ASSERT_EQ(done["state"], "done") << done.dump();
    const json& ls = done["report"]["light_sampling"];
    EXPECT_EQ(ls["requested"], mode) << ls.dump();
    EXPECT_EQ(ls["mode"], std::string(mode) == "auto" ? "mis" : "hemisphere") << ls.dump();
  }
}

// "two_sided": every material two-sided (issue 40, part 3): the request says so, the atlas
// gets back charts, the report counts the back hits; a reference must match it (another atlas).
TEST(BakesE2E, TwoSidedIsTheRequestsChoice) {
  Daemon d;
  auto c = d.client();
  std::string one_sided_id;
  for (const bool two_sided : {false, true}) {
    const std::string body = std::string(R"({"scene": "cornell", "spp": 2, "bounces": 0, "texel": 0.25)") +
                             (two_sided ? R"(, "two_sided": true})" : "}");
    const json job = post_bake(c, body);
    EXPECT_EQ(job["request"]["two_sided"], two_sided);
    const json done = wait_for(c, job["id"].get<std::string>(), {"done", "failed"});
    ASSERT_EQ(done["state"], "done") << done.dump();
    const json& report = done["report"];
    EXPECT_EQ(report["atlas"]["back_charts"], two_sided ? report["atlas"]["charts"].get<int>() / 2 : 0) << report.dump();
    EXPECT_EQ(report["back_hits"]["two_sided_triangles"], two_sided ? report["scene"]["triangles"].get<int>() : 0);
    if (!two_sided) one_sided_id = job["id"].get<std::string>();
  }
  const json refused = post_bake(c, R"({"scene": "cornell", "spp": 2, "bounces": 0, "texel": 0.25, "two_sided": true, )"
                                    R"("reference": ")" + one_sided_id + "\"}", 422);
  EXPECT_EQ(refused.dump().find("/reference") != std::string::npos, true) << refused.dump();
}

TEST(BakesE2E, CornellBakeRunsToTheEndAndServesItsFiles) {
  Daemon d;
  auto c = d.client();
  const json job = post_bake(c, small_bake);
  const std::string id = job["id"];
  EXPECT_TRUE(job["state"] == "queued" || job["state"] == "running") << job.dump();
  EXPECT_EQ(job["request"]["spp"], 4);
  EXPECT_EQ(job["request"]["mixers_source"], "default");

  const json done = wait_for(c, id, {"done", "failed"});
  ASSERT_EQ(done["state"], "done") << done.dump();
  const json& report = done["report"];
  EXPECT_EQ(report["spp"], 4);
  EXPECT_EQ(report["bounces"], 1);
  EXPECT_EQ(report["sampler"], "mixforge-cmj");
  EXPECT_EQ(report["backend"], "embree");
  EXPECT_GT(report["texels"].get<int>(), 1000);
  EXPECT_GT(report["radiance"]["mean"][0].get<double>(), 0);
  EXPECT_EQ(report["mixers"].size(), 4u);
  EXPECT_EQ(done["progress"]["texels_done"], done["progress"]["texels"]);
  EXPECT_EQ(done["files"].size(), 4u);

  auto png = c.Get(("/api/v1/bakes/" + id + "/lightmap.png").c_str());
  ASSERT_EQ(png->status, 200);
  EXPECT_EQ(png->get_header_value("Content-Type"), "image/png");
  EXPECT_EQ(png->body.substr(0, 4), "\x89PNG");
  auto exr = c.Get(("/api/v1/bakes/" + id + "/lightmap.exr").c_str());
  ASSERT_EQ(exr->status, 200);
  EXPECT_EQ(exr->body.substr(0, 4), std::string("\x76\x2f\x31\x01", 4)) << "OpenEXR magic";
  auto preview = c.Get(("/api/v1/bakes/" + id + "/preview.png").c_str());
  ASSERT_EQ(preview->status, 200);
  EXPECT_EQ(preview->body.substr(0, 4), "\x89PNG");
  auto rep = c.Get(("/api/v1/bakes/" + id + "/report.json").c_str());
  ASSERT_EQ(rep->status, 200);
  EXPECT_EQ(json::parse(rep->body), report);

  auto list = c.Get("/api/v1/bakes?limit=10");
  ASSERT_EQ(list->status, 200);
  const json l = json::parse(list->body);
  EXPECT_EQ(l["total"], 1);
  EXPECT_EQ(l["items"][0]["id"], id);

  // The stream of a finished bake is its job, then the end.
  const auto events = read_all_events(d, "/api/v1/bakes/" + id + "/events");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].event, "bake");
  EXPECT_EQ(json::parse(events[0].data)["state"], "done");
}

TEST(BakesE2E, ProgressStreamsUntilTheBakeEnds) {
  Daemon d;
  auto c = d.client();
  // Enough work for several progress reports (each pass reports at most every 0.1 s).
  const json job = post_bake(c, R"({"scene": "cornell", "spp": 64, "bounces": 2, "texel": 0.05})");
  const std::string id = job["id"];
  const auto events = read_all_events(d, "/api/v1/bakes/" + id + "/events");
  ASSERT_GE(events.size(), 3u);
  EXPECT_EQ(events.front().event, "bake");
  EXPECT_EQ(events.back().event, "state");
  const json last = json::parse(events.back().data);
  EXPECT_EQ(last["state"], "done") << events.back().data;
  EXPECT_EQ(last["job"]["state"], "done");
  int progress = 0;
  std::uint64_t prev_pass = 0;
  for (const auto& e : events)
    if (e.event == "progress") {
      ++progress;
      const json p = json::parse(e.data)["progress"];
      EXPECT_GE(p["pass"].get<std::uint64_t>(), prev_pass) << "passes come in order";
      prev_pass = p["pass"];
      EXPECT_LE(p["texels_done"].get<std::uint64_t>(), p["texels"].get<std::uint64_t>());
    }
  EXPECT_GE(progress, 1);
  EXPECT_EQ(prev_pass, 2u) << "the last pass reported is bounce 2";
}

TEST(BakesE2E, DeleteCancelsARunningBakeAndTheNextOneRuns) {
  Daemon d;
  auto c = d.client();
  const json job = post_bake(c, long_bake);
  const std::string id = job["id"];
  const json running = wait_for(c, id, {"running"});
  ASSERT_EQ(running["state"], "running");
  // Tracing has begun (progress reported), so the cancel lands in the integrator.
  ASSERT_TRUE(eventually([&] { return !get_bake(c, id)["progress"].is_null(); }));
  auto del = c.Delete(("/api/v1/bakes/" + id).c_str());
  ASSERT_EQ(del->status, 204);
  EXPECT_EQ(c.Get(("/api/v1/bakes/" + id).c_str())->status, 404);
  EXPECT_EQ(c.Delete(("/api/v1/bakes/" + id).c_str())->status, 404);
  // The one bake slot is free again: a small bake finishes.
  const json next = post_bake(c, small_bake);
  EXPECT_EQ(wait_for(c, next["id"], {"done", "failed"}, 60)["state"], "done");
  // The cancelled bake's folder is gone.
  EXPECT_TRUE(eventually([&] { return !fs::exists(d.data() / "bakes" / id); }, 30));
}

TEST(BakesE2E, TheQueueIsBounded) {
  Daemon d({"--max-queued-bakes", "1"});
  auto c = d.client();
  const json first = post_bake(c, long_bake);
  ASSERT_EQ(wait_for(c, first["id"], {"running"})["state"], "running");
  const json second = post_bake(c, long_bake);
  EXPECT_EQ(second["state"], "queued");
  auto third = c.Post("/api/v1/bakes", long_bake, "application/json");
  ASSERT_EQ(third->status, 429) << third->body;
  EXPECT_FALSE(third->get_header_value("Retry-After").empty());
  // A queued bake is removed at once; then there is room again.
  EXPECT_EQ(c.Delete(("/api/v1/bakes/" + second["id"].get<std::string>()).c_str())->status, 204);
  const json again = post_bake(c, small_bake);
  EXPECT_EQ(c.Delete(("/api/v1/bakes/" + first["id"].get<std::string>()).c_str())->status, 204);
  EXPECT_EQ(wait_for(c, again["id"], {"done", "failed"}, 60)["state"], "done");
}

TEST(BakesE2E, BadRequestsNameTheirField) {
  Daemon d({"--max-bake-spp", "1024"});
  auto c = d.client();
  struct Case {
    const char* body;
    int status;
    const char* field;
  };
  const Case cases[] = {
      {R"({"spp": 0})", 422, "/spp"},
      {R"({"spp": 2048})", 422, "/spp"},
      {R"({"bounces": 17})", 422, "/bounces"},
      {R"({"scene": "/etc/passwd"})", 422, "/scene"},
      {R"({"sampler": "halton"})", 422, "/sampler"},
      {R"({"light_sampling": "nee"})", 422, "/light_sampling"},
      {R"({"sampler": "pcg", "mixers": {"function_ids": ["0123456789abcdef"]}})", 422, "/mixers"},
      {R"({"mixers": {"function_ids": ["0123456789abcdef"]}})", 404, "/mixers/function_ids/0"},
      {R"({"mixers": {"run": "r000000000000"}})", 404, "/mixers/run"},
      {R"({"mixers": {"programs": ["x ^= x >> 16;", "x *= ;"]}})", 422, "/mixers/programs/1"},
      {R"({"scene": {"format": "obj", "content": "v 0 0 0", "materials": {"../x.mtl": ""}}})", 422,
       "/scene"},
  };
  for (const Case& k : cases) {
    auto r = c.Post("/api/v1/bakes", k.body, "application/json");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, k.status) << k.body << " -> " << r->body;
    const json p = json::parse(r->body);
    EXPECT_EQ(p.value("field", std::string()).rfind(k.field, 0), 0u) << k.body << " -> " << r->body;
  }
  EXPECT_EQ(c.Get("/api/v1/bakes/nonsense")->status, 404);
  EXPECT_EQ(c.Get("/api/v1/bakes/b000000000000")->status, 404);
  EXPECT_EQ(c.Get("/api/v1/bakes?limit=0")->status, 400);
  EXPECT_EQ(json::parse(c.Get("/api/v1/bakes")->body)["total"], 0) << "no bad request made a bake";
}

TEST(BakesE2E, UploadedScenes) {
  Daemon d;
  auto c = d.client();
  // A closed furnace box (faces wound to point inward) with emission: bakes to the closed
  // form E (1 - rho^(B+1)) / (1 - rho) everywhere.
  const json obj = {{"scene",
                     {{"format", "obj"},
                      {"name", "box.obj"},
                      {"content",
                       "mtllib box.mtl\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0 0 1\nv 1 0 1\nv 1 1 1\nv 0 1 1\n"
                       "usemtl wall\nf 1 2 3 4\nf 5 8 7 6\nf 1 5 6 2\nf 4 3 7 8\nf 1 4 8 5\nf 2 6 7 3\n"},
                      {"materials", {{"box.mtl", "newmtl wall\nKd 0.5 0.5 0.5\nKe 1 1 1\n"}}}}},
                    {"spp", 16},
                    {"bounces", 2},
                    {"texel", 0.1}};
  const json job = post_bake(c, obj.dump());
  EXPECT_EQ(job["request"]["scene"]["format"], "obj");
  EXPECT_EQ(job["request"]["scene"]["name"], "box.obj");
  const json done = wait_for(c, job["id"].get<std::string>(), {"done", "failed"});
  ASSERT_EQ(done["state"], "done") << done.dump();
  const double want = (1 - 0.5 * 0.5 * 0.5) / (1 - 0.5);  // E = 1, rho = 0.5, B = 2
  for (int ch = 0; ch < 3; ++ch) {
    EXPECT_NEAR(done["report"]["radiance"]["min"][ch].get<double>(), want, 0.005 * want);
    EXPECT_NEAR(done["report"]["radiance"]["max"][ch].get<double>(), want, 0.005 * want);
  }

  // A malformed Quake map: the bake fails and its error names line and column.
  const json map = {{"scene", {{"format", "map"}, {"content", "{\n\"classname\" \"worldspawn\"\n{\n( 0 0 0 ) ( 1 0 0 ) oops\n}\n}\n"}}},
                    {"spp", 1}};
  const json bad = post_bake(c, map.dump());
  const json failed = wait_for(c, bad["id"], {"done", "failed"});
  ASSERT_EQ(failed["state"], "failed") << failed.dump();
  EXPECT_NE(failed["error"].get<std::string>().find(":4:"), std::string::npos) << failed["error"];
  EXPECT_EQ(c.Get(("/api/v1/bakes/" + bad["id"].get<std::string>() + "/lightmap.png").c_str())->status, 409);
}

TEST(BakesE2E, MixersFromStoredFunctionsAndFromARunsFamily) {
  Daemon d;
  auto c = d.client();
  // A 32-bit run locked to one kind sequence: its pool is one family of same-kind programs.
  auto created = c.Post("/api/v1/runs",
                        R"({"width": 32, "max_steps": 5, "pool_size": 16, "threads": 1,
                            "kind_sequence": ["xorshift-right", "mul-const", "xorshift-right", "mul-const", "xorshift-right"],
                            "precision": {"exact_leaders": false}, "budget": {"seconds": 2}})",
                        "application/json");
  ASSERT_EQ(created->status, 201) << created->body;
  const std::string run = json::parse(created->body)["id"];
  ASSERT_TRUE(eventually([&] {
    auto r = c.Get(("/api/v1/runs/" + run).c_str());
    return r && r->status == 200 && json::parse(r->body)["state"] == "finished";
  }));
  auto pool = c.Get(("/api/v1/runs/" + run + "/pool?limit=4").c_str());
  ASSERT_EQ(pool->status, 200);
  const json items = json::parse(pool->body)["items"];
  ASSERT_GE(items.size(), 2u);

  json ids = json::array({items[0]["id"], items[1]["id"]});
  json body = json::parse(small_bake);
  body["mixers"] = {{"function_ids", ids}};
  const json by_id = wait_for(c, post_bake(c, body.dump())["id"], {"done", "failed"});
  ASSERT_EQ(by_id["state"], "done") << by_id.dump();
  EXPECT_EQ(by_id["report"]["mixer_origin"], "jit");
  EXPECT_EQ(by_id["report"]["mixers"][0]["id"], ids[0]);
  EXPECT_EQ(by_id["report"]["mixers"][1]["id"], ids[1]);
  EXPECT_EQ(by_id["report"]["mixers"][3]["id"], ids[1]) << "missing lanes repeat the last";

  body["mixers"] = {{"run", run}};
  const json by_run = wait_for(c, post_bake(c, body.dump())["id"], {"done", "failed"});
  ASSERT_EQ(by_run["state"], "done") << by_run.dump();
  EXPECT_EQ(by_run["request"]["mixers_source"], "run " + run);
  ASSERT_EQ(by_run["report"]["mixers"].size(), 4u);
  for (const auto& m : by_run["report"]["mixers"]) EXPECT_EQ(m["width"], 32);
}

// A convergence benchmark over the API: bakes measured against an earlier bake of the same
// scene and texel size. More samples, less error; the reference survives its own deletion.
TEST(BakesE2E, ReferenceBakeGivesEachReportItsRmse) {
  Daemon d;
  auto c = d.client();
  const json ref = post_bake(c, R"({"scene": "cornell", "spp": 64, "bounces": 1, "texel": 0.1, "sampler": "sobol-owen", "seed": 99})");
  const std::string ref_id = ref["id"];
  const json early = wait_for(c, ref_id, {"done", "failed"});
  ASSERT_EQ(early["state"], "done") << early.dump();
  EXPECT_TRUE(early["report"]["rmse"].is_null());

  std::vector<double> rmse;
  std::vector<std::string> ids;
  for (int spp : {1, 16}) {
    const json b = post_bake(c, R"({"scene": "cornell", "bounces": 1, "texel": 0.1, "sampler": "mixforge-cmj", "spp": )" +
                                    std::to_string(spp) + R"(, "reference": ")" + ref_id + R"("})");
    ids.push_back(b["id"]);
  }
  // The reference may go: each bake kept its own copy of the reference lightmap.
  EXPECT_EQ(c.Delete(("/api/v1/bakes/" + ref_id).c_str())->status, 204);
  for (const auto& id : ids) {
    const json done = wait_for(c, id, {"done", "failed"});
    ASSERT_EQ(done["state"], "done") << done.dump();
    ASSERT_TRUE(done["report"]["rmse"].is_number()) << done["report"].dump();
    EXPECT_EQ(done["report"]["reference"], ref_id);
    EXPECT_EQ(done["request"]["reference"], ref_id);
    rmse.push_back(done["report"]["rmse"].get<double>());
  }
  EXPECT_GT(rmse[0], 0);
  EXPECT_LT(rmse[1], rmse[0] * 0.6) << "16 spp must be much closer to the reference than 1 spp";

  // References that cannot be used name the field.
  const json gone = post_bake(c, R"({"spp": 1, "texel": 0.1, "reference": ")" + ref_id + R"("})", 422);
  EXPECT_EQ(gone["field"], "/reference");
  const json other_texel = post_bake(c, R"({"spp": 1, "texel": 0.2, "reference": ")" + ids[0] + R"("})", 422);
  EXPECT_EQ(other_texel["field"], "/reference");
  EXPECT_NE(other_texel["detail"].get<std::string>().find("texel"), std::string::npos) << other_texel.dump();
  const json running = post_bake(c, long_bake);
  const json unfinished = post_bake(c, R"({"spp": 1, "texel": 0.02, "reference": ")" + running["id"].get<std::string>() + R"("})", 422);
  EXPECT_NE(unfinished["detail"].get<std::string>().find("finished"), std::string::npos) << unfinished.dump();
  post_bake(c, R"({"spp": 1, "reference": "not-a-bake"})", 422);
  EXPECT_EQ(c.Delete(("/api/v1/bakes/" + running["id"].get<std::string>()).c_str())->status, 204);
}

TEST(BakesE2E, FinishedBakesOutliveTheDaemonAndInterruptedOnesComeBackFailed) {
  Daemon d;
  std::string done_id, running_id;
  {
    auto c = d.client();
    done_id = post_bake(c, small_bake)["id"];
    ASSERT_EQ(wait_for(c, done_id, {"done", "failed"})["state"], "done");
    running_id = post_bake(c, long_bake)["id"];
    ASSERT_EQ(wait_for(c, running_id, {"running"})["state"], "running");
  }
  d.kill9();
  d.start();
  auto c = d.client();
  const json done = get_bake(c, done_id);
  EXPECT_EQ(done["state"], "done");
  EXPECT_EQ(c.Get(("/api/v1/bakes/" + done_id + "/lightmap.png").c_str())->status, 200);
  const json interrupted = get_bake(c, running_id);
  EXPECT_EQ(interrupted["state"], "failed");
  EXPECT_NE(interrupted["error"].get<std::string>().find("interrupted"), std::string::npos) << interrupted.dump();
  // A clean stop (SIGTERM) during a bake exits promptly: the bake is cancelled.
  const std::string again = post_bake(c, long_bake)["id"];
  ASSERT_EQ(wait_for(c, again, {"running"})["state"], "running");
  const auto [code, seconds] = d.terminate();
  EXPECT_EQ(code, 0) << d.log();
  d.start();
  auto c2 = d.client();
  EXPECT_EQ(get_bake(c2, again)["state"], "cancelled");
}

#else

TEST(BakesE2E, RoutesAnswer501WithoutTheBaker) {
  Daemon d;
  auto c = d.client();
  auto r = c.Post("/api/v1/bakes", "{}", "application/json");
  ASSERT_EQ(r->status, 501);
  EXPECT_NE(r->body.find("bakes-not-available"), std::string::npos) << r->body;
  EXPECT_EQ(c.Get("/api/v1/bakes")->status, 501);
}

#endif

}  // namespace
}  // namespace mixforge::test
