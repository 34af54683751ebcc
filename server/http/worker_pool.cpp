#include "server/http/worker_pool.hpp"

#include <chrono>

namespace mixforge::server {

WorkerPool::WorkerPool(unsigned threads) {
  for (unsigned i = 0; i < threads; ++i) threads_.emplace_back([this] { loop(); });
}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard lk(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  for (auto& t : threads_) t.join();
}

void WorkerPool::post(std::function<void()> job) {
  {
    std::lock_guard lk(mu_);
    jobs_.push_back(std::move(job));
  }
  cv_.notify_one();
}

std::size_t WorkerPool::queued() const {
  std::lock_guard lk(mu_);
  return jobs_.size();
}

std::size_t WorkerPool::busy() const {
  std::lock_guard lk(mu_);
  return busy_;
}

bool WorkerPool::drain(double timeout_s) {
  std::unique_lock lk(mu_);
  return idle_cv_.wait_for(lk, std::chrono::duration<double>(timeout_s), [&] { return jobs_.empty() && busy_ == 0; });
}

void WorkerPool::loop() {
  for (;;) {
    std::function<void()> job;
    {
      std::unique_lock lk(mu_);
      cv_.wait(lk, [&] { return stop_ || !jobs_.empty(); });
      if (jobs_.empty()) return;
      job = std::move(jobs_.front());
      jobs_.pop_front();
      ++busy_;
    }
    try {
      job();
    } catch (...) {
      // Jobs report their own errors; one that escapes must not take the pool down.
    }
    {
      std::lock_guard lk(mu_);
      --busy_;
      if (jobs_.empty() && busy_ == 0) idle_cv_.notify_all();
    }
  }
}

}  // namespace mixforge::server
