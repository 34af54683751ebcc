#include "server/http/evaluation_queue.hpp"

#include <algorithm>
#include <chrono>

#include "server/http/problem.hpp"

namespace mixforge::server {

EvaluationQueue::EvaluationQueue(std::size_t concurrent, std::size_t max_queued)
    : concurrent_(concurrent == 0 ? 1 : concurrent), max_queued_(max_queued) {
  for (std::size_t i = 0; i < concurrent_; ++i) threads_.emplace_back([this] { loop(); });
}

EvaluationQueue::~EvaluationQueue() {
  close();
  {
    std::lock_guard lk(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  for (auto& t : threads_) t.join();
}

std::size_t EvaluationQueue::live_waiting_locked() const {
  return static_cast<std::size_t>(
      std::count_if(queue_.begin(), queue_.end(), [](const Entry& e) { return !e.cancel->load(); }));
}

void EvaluationQueue::submit(bool may_queue, Flag cancel, Job job) {
  std::vector<Entry> dropped;
  {
    std::lock_guard lk(mu_);
    if (closed_) throw HttpError(503, "shutting-down", "the server is shutting down").with_header("Retry-After", "5");
    // Jobs whose clients left while waiting give their place up now.
    for (auto it = queue_.begin(); it != queue_.end();) {
      if (it->cancel->load()) {
        dropped.push_back(std::move(*it));
        it = queue_.erase(it);
      } else {
        ++it;
      }
    }
    const std::size_t busy = running_.size() + queue_.size();
    if (busy >= concurrent_) {
      const std::size_t waiting = busy - concurrent_;
      if (!may_queue)
        throw HttpError(429, "too-many-evaluations",
                        "too many concurrent evaluations (limit " + std::to_string(concurrent_) + "); retry later")
            .with_header("Retry-After", "1");
      if (waiting >= max_queued_)
        throw HttpError(429, "evaluation-queue-full",
                        "too many evaluations: " + std::to_string(running_.size()) + " running and " +
                            std::to_string(waiting) + " queued (limits " + std::to_string(concurrent_) + " and " +
                            std::to_string(max_queued_) + "); retry later")
            .with_header("Retry-After", "5");
    }
    queue_.push_back({std::move(cancel), std::move(job)});
  }
  cv_.notify_one();
  for (auto& e : dropped) e.job(true);
}

void EvaluationQueue::loop() {
  for (;;) {
    Entry e;
    {
      std::unique_lock lk(mu_);
      cv_.wait(lk, [&] { return stop_ || !queue_.empty(); });
      if (queue_.empty()) return;
      e = std::move(queue_.front());
      queue_.pop_front();
      if (!e.cancel->load()) running_.push_back(e.cancel);
    }
    // A job cancelled while it waited is only answered; one that started scores, and its
    // count watches the flag from here on.
    const bool cancelled = e.cancel->load();
    if (!cancelled) {
      std::function<void(const std::atomic<bool>&)> hook;
      {
        std::lock_guard lk(mu_);
        hook = before_scoring_;
      }
      if (hook) hook(*e.cancel);
    }
    try {
      e.job(cancelled);
    } catch (...) {
      // Jobs answer their own errors; one that escapes must not end the thread.
    }
    {
      std::lock_guard lk(mu_);
      auto it = std::find(running_.begin(), running_.end(), e.cancel);
      if (it != running_.end()) running_.erase(it);
      if (running_.empty()) idle_cv_.notify_all();
    }
  }
}

void EvaluationQueue::close() {
  std::deque<Entry> waiting;
  {
    std::lock_guard lk(mu_);
    closed_ = true;
    for (auto& f : running_) f->store(true);
    waiting.swap(queue_);
  }
  for (auto& e : waiting) {
    try {
      e.job(true);
    } catch (...) {
    }
  }
}

bool EvaluationQueue::drain(double timeout_s) {
  std::unique_lock lk(mu_);
  return idle_cv_.wait_for(lk, std::chrono::duration<double>(timeout_s), [&] { return running_.empty(); });
}

std::size_t EvaluationQueue::running() const {
  std::lock_guard lk(mu_);
  return running_.size();
}

bool EvaluationQueue::closed() const {
  std::lock_guard lk(mu_);
  return closed_;
}

std::size_t EvaluationQueue::waiting() const {
  std::lock_guard lk(mu_);
  return live_waiting_locked();
}

void EvaluationQueue::set_before_scoring(std::function<void(const std::atomic<bool>&)> hook) {
  std::lock_guard lk(mu_);
  before_scoring_ = std::move(hook);
}

}  // namespace mixforge::server
