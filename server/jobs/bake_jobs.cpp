#include "server/jobs/bake_jobs.hpp"

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <random>

#include <tbb/task_arena.h>

#include "avalanche/evaluator.hpp"
#include "evolver/run/run_types.hpp"
#include "server/http/event_stream.hpp"
#include "server/http/problem.hpp"

namespace mixforge::server {

namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

bool finished(const std::string& state) { return state == "done" || state == "failed" || state == "cancelled"; }

nlohmann::json null_or(double v) { return v < 0 ? nlohmann::json(nullptr) : nlohmann::json(v); }

const char* const output_files[] = {"lightmap.png", "lightmap.exr", "preview.png", "report.json"};
const char* const reference_file = "reference.exr";

}  // namespace

struct BakeJobs::Job {
  std::string id;
  std::uint64_t seq = 0;
  BakeSpec spec;
  std::string state = "queued";
  double created_at = 0, started_at = -1, finished_at = -1;
  std::string phase;        // "scoring mixers", "baking", "writing"
  nlohmann::json progress;  // null until the bake reports
  nlohmann::json report;    // null until done
  std::string error;
  std::atomic<bool> cancel{false};
  bool removed = false;
  fs::path dir;
  std::vector<std::weak_ptr<SseClient>> followers;
  Clock::time_point last_progress_event{};
};

BakeJobs::BakeJobs(fs::path dir, BakeLimits limits, const avalanche::Evaluator& evaluator)
    : dir_(std::move(dir)), limits_(limits), evaluator_(evaluator) {
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec) throw std::runtime_error("cannot create bake folder " + dir_.string() + ": " + ec.message());
  load();
  for (std::size_t i = 0; i < std::max<std::size_t>(1, limits_.max_running); ++i)
    threads_.emplace_back([this] { worker(); });
}

BakeJobs::~BakeJobs() {
  shutdown();
  for (auto& t : threads_)
    if (t.joinable()) t.join();
}

void BakeJobs::shutdown() {
  std::vector<std::shared_ptr<SseClient>> followers;
  {
    std::lock_guard lk(mu_);
    closed_ = true;
    for (auto& [id, job] : jobs_) {
      job->cancel = true;
      for (auto& w : job->followers)
        if (auto c = w.lock()) followers.push_back(std::move(c));
      job->followers.clear();
    }
  }
  wake_.notify_all();
  for (auto& c : followers) c->close();
}

nlohmann::json BakeJobs::to_json_locked(const Job& job) const {
  nlohmann::json j = {{"id", job.id},
                      {"state", job.state},
                      {"created_at", job.created_at},
                      {"started_at", null_or(job.started_at)},
                      {"finished_at", null_or(job.finished_at)},
                      {"request", job.spec.request},
                      {"phase", job.phase.empty() ? nlohmann::json(nullptr) : nlohmann::json(job.phase)},
                      {"progress", job.progress},
                      {"report", job.report},
                      {"error", job.error.empty() ? nlohmann::json(nullptr) : nlohmann::json(job.error)}};
  nlohmann::json files = nlohmann::json::object();
  if (job.state == "done")
    for (const char* f : output_files) files[f] = "/api/v1/bakes/" + job.id + "/" + f;
  j["files"] = std::move(files);
  return j;
}

void BakeJobs::save(const Job& job) const {
  nlohmann::json j;
  {
    std::lock_guard lk(mu_);
    j = to_json_locked(job);
    j["seq"] = job.seq;
  }
  const fs::path tmp = job.dir / "job.json.tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << j.dump(2) << "\n";
    out.flush();
    if (!out) throw std::runtime_error("cannot write " + tmp.string());
  }
  fs::rename(tmp, job.dir / "job.json");
}

void BakeJobs::load() {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir_, ec)) {
    const fs::path file = entry.path() / "job.json";
    if (!fs::exists(file, ec)) continue;
    try {
      std::ifstream in(file);
      const nlohmann::json j = nlohmann::json::parse(in);
      auto job = std::make_shared<Job>();
      job->id = j.at("id").get<std::string>();
      if (job->id != entry.path().filename().string()) continue;
      job->seq = j.value("seq", std::uint64_t{0});
      job->dir = entry.path();
      job->spec.request = j.at("request");
      job->state = j.at("state").get<std::string>();
      job->created_at = j.at("created_at").get<double>();
      job->started_at = j["started_at"].is_number() ? j["started_at"].get<double>() : -1;
      job->finished_at = j["finished_at"].is_number() ? j["finished_at"].get<double>() : -1;
      job->progress = j.value("progress", nlohmann::json());
      job->report = j.value("report", nlohmann::json());
      if (j["error"].is_string()) job->error = j["error"].get<std::string>();
      if (!finished(job->state)) {
        // Queued or running when the last daemon ended: the bake is not resumed.
        job->state = "failed";
        job->error = "interrupted: the daemon stopped before the bake finished";
        job->phase.clear();
        if (job->finished_at < 0) job->finished_at = evolver::unix_now();
        save(*job);
      }
      next_seq_ = std::max(next_seq_, job->seq + 1);
      jobs_.emplace(job->id, std::move(job));
    } catch (const std::exception&) {
      // A job file this daemon cannot read (an older format, a torn write) is left alone.
    }
  }
}

fs::path BakeJobs::reference_locked(const BakeSpec& spec) const {
  auto it = jobs_.find(spec.reference);
  if (it == jobs_.end())
    throw HttpError(422, "reference-unusable", "no bake with id " + spec.reference).with_field("/reference");
  const Job& ref = *it->second;
  if (ref.state != "done")
    throw HttpError(422, "reference-unusable",
                    "bake " + spec.reference + " is " + ref.state + ": a reference must be a finished bake")
        .with_field("/reference");
  // The same scene and texel size give the same atlas (the rmse compares texel by texel).
  const nlohmann::json& r = ref.spec.request;
  bool same_scene = r.value("scene", nlohmann::json()) == spec.request.value("scene", nlohmann::json());
  if (same_scene && !spec.scene_format.empty()) {
    // Uploaded scenes: the same bytes (name and size alone could hide another map).
    std::ifstream in(ref.dir / ("scene." + spec.scene_format), std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    same_scene = in.is_open() && bytes == spec.scene_content;
  }
  // two_sided adds back charts: another atlas.
  const bool same_texel = r.value("texel", 0.0) == spec.texel && r.value("two_sided", false) == spec.plan.two_sided;
  if (!same_scene || !same_texel)
    throw HttpError(422, "reference-unusable",
                    "bake " + spec.reference + " baked " + r.value("scene", nlohmann::json()).dump() + " at texel " +
                        nlohmann::json(r.value("texel", 0.0)).dump() +
                        (r.value("two_sided", false) ? " two-sided" : "") +
                        "; a reference must be a bake of the same scene at the same texel size and two_sided")
        .with_field("/reference");
  return ref.dir / "lightmap.exr";
}

nlohmann::json BakeJobs::submit(BakeSpec spec) {
  auto job = std::make_shared<Job>();
  fs::path reference;
  job->spec = std::move(spec);
  job->created_at = evolver::unix_now();
  {
    std::lock_guard lk(mu_);
    if (closed_) throw HttpError(503, "shutting-down", "the server is shutting down");
    if (queue_.size() >= limits_.max_queued)
      throw HttpError(429, "too-many-bakes",
                      "too many bakes waiting (limit " + std::to_string(limits_.max_queued) + ")")
          .with_header("Retry-After", "30");
    if (!job->spec.reference.empty()) reference = reference_locked(job->spec);
    do job->id = evolver::random_id('b');
    while (jobs_.count(job->id));
    job->seq = next_seq_++;
  }
  job->dir = dir_ / job->id;
  fs::create_directories(job->dir);
  if (!reference.empty()) {
    // A copy: the reference bake may be deleted or pruned before this one runs.
    std::error_code ec;
    fs::copy_file(reference, job->dir / reference_file, fs::copy_options::overwrite_existing, ec);
    if (ec) {
      fs::remove_all(job->dir, ec);
      throw HttpError(422, "reference-unusable",
                      "cannot copy the lightmap of bake " + job->spec.reference + ": " + ec.message())
          .with_field("/reference");
    }
  }
  if (!job->spec.scene_format.empty()) {
    // Uploaded files under fixed names (the route checked the material names).
    const fs::path scene = job->dir / ("scene." + job->spec.scene_format);
    std::ofstream(scene, std::ios::binary) << job->spec.scene_content;
    for (const auto& [name, content] : job->spec.materials) std::ofstream(job->dir / name, std::ios::binary) << content;
    job->spec.scene = scene.string();
    job->spec.scene_content.clear();
  }
  save(*job);
  nlohmann::json j;
  {
    std::lock_guard lk(mu_);
    jobs_.emplace(job->id, job);
    queue_.push_back(job);
    prune_locked();
    j = to_json_locked(*job);
  }
  wake_.notify_one();
  return j;
}

void BakeJobs::prune_locked() {
  std::vector<std::shared_ptr<Job>> done;
  for (auto& [id, job] : jobs_)
    if (finished(job->state)) done.push_back(job);
  if (done.size() <= limits_.max_kept) return;
  std::sort(done.begin(), done.end(), [](const auto& a, const auto& b) { return a->seq < b->seq; });
  for (std::size_t i = 0; i + limits_.max_kept < done.size(); ++i) {
    std::error_code ec;
    fs::remove_all(done[i]->dir, ec);
    jobs_.erase(done[i]->id);
  }
}

std::optional<nlohmann::json> BakeJobs::get(const std::string& id) const {
  std::lock_guard lk(mu_);
  auto it = jobs_.find(id);
  if (it == jobs_.end()) return std::nullopt;
  return to_json_locked(*it->second);
}

std::vector<nlohmann::json> BakeJobs::list(std::size_t offset, std::size_t limit, std::size_t* total) const {
  std::lock_guard lk(mu_);
  std::vector<const Job*> all;
  for (const auto& [id, job] : jobs_) all.push_back(job.get());
  std::sort(all.begin(), all.end(), [](const Job* a, const Job* b) { return a->seq > b->seq; });
  *total = all.size();
  std::vector<nlohmann::json> out;
  for (std::size_t i = offset; i < all.size() && out.size() < limit; ++i) out.push_back(to_json_locked(*all[i]));
  return out;
}

bool BakeJobs::remove(const std::string& id) {
  std::shared_ptr<Job> job;
  std::vector<std::shared_ptr<SseClient>> followers;
  bool running = false;
  {
    std::lock_guard lk(mu_);
    auto it = jobs_.find(id);
    if (it == jobs_.end()) return false;
    job = it->second;
    jobs_.erase(it);
    queue_.erase(std::remove(queue_.begin(), queue_.end(), job), queue_.end());
    job->removed = true;
    job->cancel = true;
    running = job->state == "running";
    for (auto& w : job->followers)
      if (auto c = w.lock()) followers.push_back(std::move(c));
    job->followers.clear();
  }
  for (auto& c : followers) {
    c->push(EventHub::frame(0, "state", nlohmann::json{{"id", id}, {"state", "cancelled"}}.dump()));
    c->close();
  }
  // A running bake's worker removes the folder when it stops (it may still write there).
  if (!running) {
    std::error_code ec;
    fs::remove_all(job->dir, ec);
  }
  return true;
}

std::optional<fs::path> BakeJobs::file(const std::string& id, const std::string& name) const {
  std::lock_guard lk(mu_);
  auto it = jobs_.find(id);
  if (it == jobs_.end() || it->second->state != "done") return std::nullopt;
  if (std::find(std::begin(output_files), std::end(output_files), name) == std::end(output_files)) return std::nullopt;
  return it->second->dir / name;
}

bool BakeJobs::follow(const std::string& id, const std::shared_ptr<SseClient>& client) {
  std::lock_guard lk(mu_);
  auto it = jobs_.find(id);
  if (it == jobs_.end()) return false;
  Job& job = *it->second;
  client->push(EventHub::frame(0, "bake", to_json_locked(job).dump()));
  if (finished(job.state))
    client->close();
  else
    job.followers.push_back(client);
  return true;
}

void BakeJobs::publish(Job& job, const std::string& event, const nlohmann::json& data) {
  std::vector<std::shared_ptr<SseClient>> targets;
  {
    std::lock_guard lk(mu_);
    job.followers.erase(std::remove_if(job.followers.begin(), job.followers.end(),
                                       [](const std::weak_ptr<SseClient>& w) { return w.expired(); }),
                        job.followers.end());
    for (auto& w : job.followers)
      if (auto c = w.lock()) targets.push_back(std::move(c));
    if (event == "state" && finished(job.state)) job.followers.clear();
  }
  const std::string f = EventHub::frame(0, event, data.dump());
  const bool last = event == "state" && data.value("state", "") != "running";
  for (auto& c : targets) {
    c->push(f);
    if (last) c->close();
  }
}

void BakeJobs::worker() {
  for (;;) {
    std::shared_ptr<Job> job;
    {
      std::unique_lock lk(mu_);
      wake_.wait(lk, [&] { return closed_ || !queue_.empty(); });
      if (closed_) return;
      job = queue_.front();
      queue_.pop_front();
      job->state = "running";
      job->started_at = evolver::unix_now();
    }
    run(*job);
    bool removed = false;
    {
      std::lock_guard lk(mu_);
      removed = job->removed;
      prune_locked();
    }
    if (removed) {
      std::error_code ec;
      fs::remove_all(job->dir, ec);
    }
  }
}

void BakeJobs::run(Job& job) {
  auto set_phase = [&](const std::string& phase) {
    {
      std::lock_guard lk(mu_);
      job.phase = phase;
    }
    publish(job, "state", {{"id", job.id}, {"state", "running"}, {"phase", phase}});
  };
  std::string state = "done", error;
  nlohmann::json report;
  try {
    save(job);
    const unsigned hw = std::max(2u, std::thread::hardware_concurrency());
    tbb::task_arena arena(static_cast<int>(limits_.bake_threads ? limits_.bake_threads : hw - 1));
    BakeSpec& spec = job.spec;

    if (app::needs_scoring(spec.plan.lanes)) {
      set_phase("scoring mixers");
      // Exact: 2^32 inputs per lane, in the bake's arena; a cancel stops the count.
      arena.execute([&] { app::score_lanes(spec.plan.lanes, evaluator_, &job.cancel); });
    }
    if (job.cancel) throw baker::BakeCancelled();

    set_phase("baking");
    app::BakeRun how;
    how.scene = spec.scene;
    how.max_atlas_size = limits_.max_atlas_size;
    how.cancel = &job.cancel;
    if (!spec.reference.empty()) how.reference = job.dir / reference_file;
    how.progress = [&](const baker::BakeProgress& p) {
      const nlohmann::json pj = {{"pass", p.pass},     {"passes", p.passes}, {"texels_done", p.texels_done},
                                 {"texels", p.texels}, {"rays", p.rays},     {"seconds", p.seconds}};
      bool send = false;
      {
        std::lock_guard lk(mu_);
        job.progress = pj;
        const auto now = Clock::now();
        if (now - job.last_progress_event > std::chrono::milliseconds(250) || p.texels_done == p.texels) {
          job.last_progress_event = now;
          send = true;
        }
      }
      if (send) publish(job, "progress", {{"id", job.id}, {"progress", pj}});
    };
    baker::BakeOutput out = arena.execute([&] { return app::run_bake(spec.plan, how).output; });
    set_phase("writing");
    if (!spec.reference.empty()) out.report["reference"] = spec.reference;  // the bake, not a path
    baker::write_outputs(out, job.dir);
    report = std::move(out.report);
  } catch (const baker::BakeCancelled&) {
    state = "cancelled";
  } catch (const avalanche::EvaluationCancelled&) {
    state = "cancelled";
  } catch (const std::exception& e) {
    state = job.cancel ? "cancelled" : "failed";
    error = e.what();
  }
  {
    std::lock_guard lk(mu_);
    job.state = state;
    job.phase.clear();
    job.error = state == "failed" ? error : "";
    job.report = std::move(report);
    job.finished_at = evolver::unix_now();
  }
  bool removed = false;
  {
    std::lock_guard lk(mu_);
    removed = job.removed;
  }
  if (!removed) {
    try {
      save(job);
    } catch (const std::exception&) {
      // The job stays correct in memory; a later daemon sees it as interrupted.
    }
  }
  nlohmann::json j;
  {
    std::lock_guard lk(mu_);
    j = to_json_locked(job);
  }
  publish(job, "state", {{"id", job.id}, {"state", state}, {"job", j}});
}

}  // namespace mixforge::server
