#pragma once
// Admission control for scoring work (POST /evaluate): a job is admitted or refused
// before it takes any thread. At most `concurrent` jobs score at once, each on one of
// this queue's own threads; costly jobs (exact evaluations of wide programs) may wait in
// a bounded queue that holds no thread; everything beyond is refused with 429 and
// Retry-After. A waiting job whose client went away leaves the queue unscored. Run
// control and reads never share these threads, so they never wait behind scoring.
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace mixforge::server {

class EvaluationQueue {
 public:
  // job(cancelled): scores (cancelled false) or only answers that it was dropped.
  using Job = std::function<void(bool cancelled)>;
  using Flag = std::shared_ptr<std::atomic<bool>>;

  EvaluationQueue(std::size_t concurrent, std::size_t max_queued);
  ~EvaluationQueue();  // cancels what is left, joins the threads
  EvaluationQueue(const EvaluationQueue&) = delete;
  EvaluationQueue& operator=(const EvaluationQueue&) = delete;

  // Admits a job or throws HttpError: 429 (with Retry-After) when every slot is busy and
  // the job may not queue or the queue is full, 503 after close(). `cancel` is the job's
  // flag: set by the HTTP side when the client goes away, by cancel_all() at shutdown.
  void submit(bool may_queue, Flag cancel, Job job);
  // Refuses new jobs and sets the cancel flag of every running and waiting job (the
  // exact count stops at its next checkpoint). Waiting jobs are answered as cancelled.
  void close();
  // Waits up to timeout_s for the running jobs to end; true when none is left.
  bool drain(double timeout_s);

  std::size_t running() const;
  std::size_t waiting() const;
  bool closed() const;  // shutting down  // admitted, not started, client still there
  std::size_t concurrent_limit() const { return concurrent_; }
  std::size_t queue_limit() const { return max_queued_; }

  // Test hook: runs on the scoring thread just before a job scores (a gate that holds
  // the slot until the test lets it go; it can watch the job's cancel flag).
  void set_before_scoring(std::function<void(const std::atomic<bool>& cancelled)> hook);

 private:
  struct Entry {
    Flag cancel;
    Job job;
  };
  void loop();
  std::size_t live_waiting_locked() const;

  const std::size_t concurrent_, max_queued_;
  mutable std::mutex mu_;
  std::condition_variable cv_, idle_cv_;
  std::deque<Entry> queue_;    // admitted, not yet on a thread
  std::vector<Flag> running_;  // flags of the jobs on a thread
  bool closed_ = false, stop_ = false;
  std::function<void(const std::atomic<bool>&)> before_scoring_;
  std::vector<std::thread> threads_;
};

}  // namespace mixforge::server
