#pragma once
// A small fixed pool of threads for handlers that may block (run control waits for a
// checkpoint, scoring waits for its turn in the evaluation queue). The scoring itself runs
// on TBB's workers inside the Evaluator; I/O threads only hand work over and get answers.
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace mixforge::server {

class WorkerPool {
 public:
  explicit WorkerPool(unsigned threads);
  ~WorkerPool();  // finishes queued jobs, joins
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  void post(std::function<void()> job);
  std::size_t queued() const;
  std::size_t busy() const;
  // Waits up to timeout_s for every job to finish; true when idle.
  bool drain(double timeout_s);

 private:
  void loop();
  mutable std::mutex mu_;
  std::condition_variable cv_, idle_cv_;
  std::deque<std::function<void()>> jobs_;
  std::size_t busy_ = 0;
  bool stop_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace mixforge::server
