#pragma once
// Admission control for POST /evaluate: at most `concurrent` evaluations score at once;
// exact evaluations of wide programs (costly) wait in a bounded queue; beyond the bounds
// the request is refused (429). A waiting evaluation whose client went away leaves the
// queue without scoring.
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>

namespace mixforge::server {

class EvaluationQueue {
 public:
  EvaluationQueue(std::size_t concurrent, std::size_t max_queued);

  // A slot held while scoring; releases on destruction.
  class Ticket {
   public:
    Ticket() = default;
    Ticket(Ticket&& o) noexcept : q_(o.q_) { o.q_ = nullptr; }
    Ticket& operator=(Ticket&&) = delete;
    ~Ticket();
    explicit operator bool() const { return q_ != nullptr; }

   private:
    friend class EvaluationQueue;
    explicit Ticket(EvaluationQueue* q) : q_(q) {}
    EvaluationQueue* q_ = nullptr;
  };

  // Takes a slot. may_queue (costly exact evaluations): waits in the bounded queue when
  // all slots are busy; else a busy server answers at once. Throws HttpError 429 when
  // over the limits, 503 when shutting down; returns an empty ticket when `cancelled`
  // became true while waiting.
  Ticket acquire(const std::atomic<bool>& cancelled, bool may_queue);
  // Wakes every waiter and refuses new ones (shutdown).
  void close();

  std::size_t running() const;
  std::size_t waiting() const;
  std::size_t concurrent_limit() const { return concurrent_; }
  std::size_t queue_limit() const { return max_queued_; }

 private:
  void release();
  const std::size_t concurrent_, max_queued_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::size_t running_ = 0, waiting_ = 0;
  bool closed_ = false;
};

}  // namespace mixforge::server
