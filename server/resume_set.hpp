#pragma once
// The runs the daemon keeps running, in data_dir/serve-state.json: added when a run is
// created or resumed, removed when it is paused, stopped or deleted. After a restart
// (clean or after SIGKILL) the daemon resumes these. The run manager reports a run whose
// process died as "stopped", the same as one stopped on request, so the daemon keeps
// its own record of intent. Written atomically (temporary file + rename).
#include <filesystem>
#include <mutex>
#include <set>
#include <string>

namespace mixforge::server {

class ResumeSet {
 public:
  explicit ResumeSet(std::filesystem::path file);
  void add(const std::string& run_id);
  void remove(const std::string& run_id);
  std::set<std::string> ids() const;

 private:
  void save_locked() const;
  const std::filesystem::path file_;
  mutable std::mutex mu_;
  std::set<std::string> ids_;
};

}  // namespace mixforge::server
