// Bounded admission and the generation workers.
//
// `slots` workers each own a Slot and run one job at a time, off the HTTP I/O threads. A submitted
// job waits in a FIFO queue for a free slot; at most `max_queue` jobs may wait beyond the free
// slots (more → Error "rate_limited", HTTP 429), and a job that waits longer than `queue_timeout`
// is rejected with Error "queue_timeout" (HTTP 503) without running. A job whose cancel flag is
// set while it waits is dropped. shutdown() rejects every waiting job with
// Error "service_unavailable", raises the cancel flag of every running job and joins the workers.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "a3s/power/error.h"
#include "runtime/slot.h"

namespace a3s::power::runtime {

struct SchedulerOptions {
  int slots = 4;                                     // concurrent generations (>= 1)
  int max_queue = 64;                                // waiting jobs beyond the free slots (>= 0)
  std::chrono::milliseconds queue_timeout{30'000};   // longest wait for a slot
};

struct Job {
  // Runs on a worker thread with the slot held. Must not throw (errors are the job's to report).
  std::function<void(Slot&)> run;
  // Called instead of `run` when the job never gets a slot (queue timeout, shutdown), on a
  // scheduler thread.
  std::function<void(const Error&)> reject;
  // Raised by the owner to cancel; the scheduler raises it on shutdown. May be null.
  std::shared_ptr<std::atomic<bool>> cancel;
};

class Scheduler {
 public:
  explicit Scheduler(const SchedulerOptions& opts);
  ~Scheduler();  // shutdown()
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  // Queues a job. Throws Error(codes::kRateLimited) when the queue is full and
  // Error(codes::kServiceUnavailable) after shutdown().
  void submit(Job job);

  int active() const;   // jobs running in a slot
  int queued() const;   // jobs waiting for a slot
  int slots() const { return static_cast<int>(slots_.size()); }

  // Wakes idle workers so their slots release the contexts of unloaded models.
  void release_unloaded();

  void shutdown();

 private:
  struct Waiting {
    Job job;
    std::chrono::steady_clock::time_point deadline;
  };
  void worker_loop(Slot& slot);
  void reaper_loop();

  SchedulerOptions opts_;
  std::vector<std::unique_ptr<Slot>> slots_;
  mutable std::mutex mu_;
  std::condition_variable work_cv_;
  std::condition_variable reaper_cv_;
  std::deque<Waiting> queue_;
  std::vector<std::shared_ptr<std::atomic<bool>>> running_;  // cancel flags of running jobs
  int active_ = 0;
  uint64_t release_epoch_ = 0;
  bool stopping_ = false;
  std::vector<std::thread> workers_;
  std::thread reaper_;
};

}  // namespace a3s::power::runtime
