#pragma once
// The daemon's bakes (/api/v1/bakes): a job per request, run one at a time (by default) on
// the job's own thread, never on an I/O or lane thread. Each job keeps its files in
// DATA/bakes/ID/ (job.json, the request's scene, lightmap.exr/png, preview.png,
// report.json), so finished bakes outlive the daemon; a bake the daemon did not finish
// comes back "failed" (interrupted). Policy: at most max_running bakes at once, at most
// max_queued waiting (429 beyond), and each bake's ray tracing on at most bake_threads
// TBB threads (default: all cores but one), so an evolution run keeps a core.
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/bake.hpp"
#include "server/jobs/bake_limits.hpp"

namespace mixforge::avalanche {
class Evaluator;
}

namespace mixforge::server {

class SseClient;

// What a bake is made of, checked (the route turns a request body into this by the use
// case's rules, app/bake.hpp).
struct BakeSpec {
  std::string scene = "cornell";                 // "cornell", or the uploaded file's name in the job folder
  std::string scene_format;                      // "" (built in), "map" or "obj"
  std::string scene_content;                     // the uploaded file
  std::map<std::string, std::string> materials;  // OBJ: .mtl files by name
  app::BakePlan plan;                     // lanes without a score (chi2 < 0) are scored by the job before it bakes
  std::string mixers_source = "default";  // "default", "function_ids", "run RUN_ID", "programs"
  double texel = 0;                       // as the request gave it (0: none): a reference bake is matched by it
  std::string reference;                  // a finished bake whose lightmap is the rmse reference ("": none)
  nlohmann::json request;                 // the request as the job reports it (scene content left out)
};

// Thread-safe. Jobs are numbered by creation; ids are "b" + 11 hex digits.
class BakeJobs {
 public:
  BakeJobs(std::filesystem::path dir, BakeLimits limits, const avalanche::Evaluator& evaluator);
  ~BakeJobs();  // cancels every bake and joins
  BakeJobs(const BakeJobs&) = delete;
  BakeJobs& operator=(const BakeJobs&) = delete;

  // Queues a bake; its job (bake.schema.json). Throws HttpError 429 when max_queued wait,
  // 503 after shutdown.
  nlohmann::json submit(BakeSpec spec);
  std::optional<nlohmann::json> get(const std::string& id) const;
  // Newest first.
  std::vector<nlohmann::json> list(std::size_t offset, std::size_t limit, std::size_t* total) const;
  // Cancels a queued or running bake and removes it with its files. false: no such bake.
  bool remove(const std::string& id);
  // A file of a finished bake (lightmap.png, lightmap.exr, preview.png, report.json).
  std::optional<std::filesystem::path> file(const std::string& id, const std::string& name) const;
  // Progress as SSE frames into client: the job now, then "progress" and "state" events
  // until the bake ends (the stream then closes). false: no such bake.
  bool follow(const std::string& id, const std::shared_ptr<SseClient>& client);
  // Cancels everything and refuses new bakes.
  void shutdown();

  const BakeLimits& limits() const { return limits_; }

 private:
  struct Job;
  void worker();
  void run(Job& job);
  void save(const Job& job) const;  // job.json, atomically
  // The lightmap.exr of spec.reference, checked (HttpError 422 naming /reference).
  std::filesystem::path reference_locked(const BakeSpec& spec) const;
  void load();          // finished jobs from an earlier daemon
  void prune_locked();  // keeps max_kept finished jobs
  void publish(Job& job, const std::string& event, const nlohmann::json& data);
  nlohmann::json to_json_locked(const Job& job) const;

  const std::filesystem::path dir_;
  const BakeLimits limits_;
  const avalanche::Evaluator& evaluator_;
  mutable std::mutex mu_;
  std::condition_variable wake_;
  std::map<std::string, std::shared_ptr<Job>> jobs_;
  std::deque<std::shared_ptr<Job>> queue_;
  std::uint64_t next_seq_ = 1;
  bool closed_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace mixforge::server
