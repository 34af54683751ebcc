// Markdown notes on runs and functions over HTTP against the real daemon (every answer is
// checked against the OpenAPI document by the client's logger): save, version, conflict,
// limits, 404s, survival across a restart, a run's note gone with the run, a function's kept.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/server/daemon_process.hpp"

namespace mixforge::test {
namespace {

nlohmann::json put_note(httplib::Client& c, const std::string& path, const nlohmann::json& body, int status) {
  auto r = c.Put(path.c_str(), body.dump(), "application/json");
  EXPECT_TRUE(r) << path;
  if (!r) return {};
  EXPECT_EQ(r->status, status) << path << ": " << r->body;
  return nlohmann::json::parse(r->body);
}

nlohmann::json get_note(httplib::Client& c, const std::string& path, int status = 200) {
  auto r = c.Get(path.c_str());
  EXPECT_TRUE(r) << path;
  if (!r) return {};
  EXPECT_EQ(r->status, status) << path << ": " << r->body;
  return nlohmann::json::parse(r->body);
}

std::string create_paused_run(httplib::Client& c) {
  auto r = c.Post("/api/v1/runs?start=false", small_run_json(8), "application/json");
  EXPECT_EQ(r->status, 201) << r->body;
  return nlohmann::json::parse(r->body)["id"];
}

TEST(NotesE2E, RunNoteVersionsConflictsAndRestart) {
  Daemon d;
  auto c = d.client();
  const std::string id = create_paused_run(c);
  const std::string path = "/api/v1/runs/" + id + "/note";

  auto empty = get_note(c, path);
  EXPECT_EQ(empty["subject"], "run");
  EXPECT_EQ(empty["id"], id);
  EXPECT_EQ(empty["text"], "");
  EXPECT_EQ(empty["version"], 0);
  EXPECT_TRUE(empty["updated_at"].is_null());

  const std::string text = "## Seed 7\n* best so far: **1.5e-5**\n* `mul 0x7feb352d` next — ünïcode ok";
  auto first = put_note(c, path, {{"text", text}}, 200);
  EXPECT_EQ(first["version"], 1);
  EXPECT_EQ(first["text"], text);
  EXPECT_TRUE(first["updated_at"].is_number());
  auto second = put_note(c, path, {{"text", text + "\nmore"}, {"base_version", 1}}, 200);
  EXPECT_EQ(second["version"], 2);

  // A second tab that read version 1 must not overwrite version 2.
  auto conflict = put_note(c, path, {{"text", "stale edit"}, {"base_version", 1}}, 409);
  EXPECT_EQ(conflict["current_version"], 2);
  EXPECT_EQ(conflict["field"], "/base_version");
  EXPECT_EQ(get_note(c, path)["text"], text + "\nmore");

  // Bad bodies name the field; nothing is written.
  auto missing = put_note(c, path, {{"body", "x"}}, 422);
  EXPECT_FALSE(missing.dump().empty());
  auto too_long = put_note(c, path, {{"text", std::string(65537, 'a')}}, 422);
  EXPECT_NE(too_long.dump().find("/text"), std::string::npos) << too_long.dump();
  auto r = c.Put(path.c_str(), "{\"text\": ", "application/json");
  EXPECT_EQ(r->status, 400) << r->body;
  EXPECT_EQ(get_note(c, path)["version"], 2);
  // Exactly at the limit (in characters, not bytes: 65,536 two-byte characters).
  std::string at_limit;
  for (int i = 0; i < 65536; ++i) at_limit += "\xc3\xa9";
  EXPECT_EQ(put_note(c, path, {{"text", at_limit}}, 200)["version"], 3);
  EXPECT_EQ(put_note(c, path, {{"text", text}}, 200)["version"], 4);

  // Unknown runs are 404 for reading and writing.
  get_note(c, "/api/v1/runs/rffffffffffff/note", 404);
  put_note(c, "/api/v1/runs/rffffffffffff/note", {{"text", "x"}}, 404);

  // The note is in the database: it survives a restart.
  EXPECT_EQ(d.terminate().first, 0);
  d.start();
  auto c2 = d.client();
  auto after = get_note(c2, path);
  EXPECT_EQ(after["text"], text);
  EXPECT_EQ(after["version"], 4);

  // Deleting the run deletes its note.
  EXPECT_EQ(c2.Delete(("/api/v1/runs/" + id).c_str())->status, 204);
  get_note(c2, path, 404);
}

TEST(NotesE2E, FunctionNoteOutlivesItsRun) {
  Daemon d;
  auto c = d.client();
  // A short 8-bit run: its functions reach the hall of fame.
  auto r = c.Post("/api/v1/runs", small_run_json(8, ", \"budget\": {\"tournaments\": 300}"), "application/json");
  ASSERT_EQ(r->status, 201) << r->body;
  const std::string run = nlohmann::json::parse(r->body)["id"];
  std::string fid;
  ASSERT_TRUE(eventually([&] {
    auto hof = c.Get(("/api/v1/hall-of-fame?run_id=" + run).c_str());
    if (!hof || hof->status != 200) return false;
    const auto j = nlohmann::json::parse(hof->body);
    if (j["items"].empty()) return false;
    fid = j["items"][0]["id"];
    return true;
  }));
  const std::string path = "/api/v1/functions/" + fid + "/note";
  EXPECT_EQ(get_note(c, path)["version"], 0);
  auto saved = put_note(c, path, {{"text", "Lattice-free in the accumulation view."}}, 200);
  EXPECT_EQ(saved["subject"], "function");
  EXPECT_EQ(saved["version"], 1);

  // Ids that name no function: malformed or unknown.
  get_note(c, "/api/v1/functions/XYZ/note", 404);
  put_note(c, "/api/v1/functions/0123456789abcdef/note", {{"text", "x"}}, 404);

  ASSERT_TRUE(eventually([&] {
    auto s = c.Get(("/api/v1/runs/" + run).c_str());
    return s && nlohmann::json::parse(s->body)["state"] == "finished";
  }));
  EXPECT_EQ(c.Delete(("/api/v1/runs/" + run).c_str())->status, 204);
  auto kept = get_note(c, path);
  EXPECT_EQ(kept["text"], "Lattice-free in the accumulation view.");
  EXPECT_EQ(kept["version"], 1);
}

}  // namespace
}  // namespace mixforge::test
