#include "server/resume_set.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

namespace mixforge::server {

ResumeSet::ResumeSet(std::filesystem::path file) : file_(std::move(file)) {
  std::ifstream in(file_);
  if (!in) return;
  try {
    const auto j = nlohmann::json::parse(in);
    for (const auto& id : j.at("running")) ids_.insert(id.get<std::string>());
  } catch (const std::exception&) {
    // A damaged file only loses the intent to resume; the runs themselves are in SQLite.
  }
}

void ResumeSet::add(const std::string& run_id) {
  std::lock_guard lk(mu_);
  if (ids_.insert(run_id).second) save_locked();
}

void ResumeSet::remove(const std::string& run_id) {
  std::lock_guard lk(mu_);
  if (ids_.erase(run_id)) save_locked();
}

std::set<std::string> ResumeSet::ids() const {
  std::lock_guard lk(mu_);
  return ids_;
}

void ResumeSet::save_locked() const {
  const nlohmann::json j = {{"running", ids_}};
  const std::string text = j.dump() + "\n";
  const std::filesystem::path tmp = file_.string() + ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) throw std::runtime_error("cannot write " + tmp.string());
  const bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()) && ::fsync(fd) == 0;
  ::close(fd);
  if (!ok) throw std::runtime_error("cannot write " + tmp.string());
  std::filesystem::rename(tmp, file_);
}

}  // namespace mixforge::server
