#include "server/evaluation_queue.hpp"

#include <chrono>

#include "server/problem.hpp"

namespace mixforge::server {

EvaluationQueue::EvaluationQueue(std::size_t concurrent, std::size_t max_queued)
    : concurrent_(concurrent == 0 ? 1 : concurrent), max_queued_(max_queued) {}

EvaluationQueue::Ticket::~Ticket() {
  if (q_) q_->release();
}

EvaluationQueue::Ticket EvaluationQueue::acquire(const std::atomic<bool>& cancelled, bool may_queue) {
  std::unique_lock lk(mu_);
  if (closed_) throw HttpError(503, "shutting-down", "the server is shutting down");
  if (!may_queue && running_ >= concurrent_)
    throw HttpError(429, "too-many-evaluations",
                    "too many concurrent evaluations (limit " + std::to_string(concurrent_) +
                        "); retry later")
        .with_header("Retry-After", "1");
  if (running_ >= concurrent_ && waiting_ >= max_queued_)
    throw HttpError(429, "evaluation-queue-full",
                    "too many evaluations: " + std::to_string(running_) + " running and " +
                        std::to_string(waiting_) + " queued (limits " + std::to_string(concurrent_) +
                        " and " + std::to_string(max_queued_) + "); retry later")
        .with_header("Retry-After", "5");
  ++waiting_;
  // Poll the cancel flag now and then: it is set from an I/O thread without our lock.
  while (running_ >= concurrent_ && !closed_ && !cancelled.load())
    cv_.wait_for(lk, std::chrono::milliseconds(50));
  --waiting_;
  if (closed_) throw HttpError(503, "shutting-down", "the server is shutting down");
  if (cancelled.load()) return Ticket();
  ++running_;
  return Ticket(this);
}

void EvaluationQueue::release() {
  {
    std::lock_guard lk(mu_);
    --running_;
  }
  cv_.notify_all();
}

void EvaluationQueue::close() {
  {
    std::lock_guard lk(mu_);
    closed_ = true;
  }
  cv_.notify_all();
}

std::size_t EvaluationQueue::running() const {
  std::lock_guard lk(mu_);
  return running_;
}

std::size_t EvaluationQueue::waiting() const {
  std::lock_guard lk(mu_);
  return waiting_;
}

}  // namespace mixforge::server
