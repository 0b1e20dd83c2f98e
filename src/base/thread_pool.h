// Persistent worker pool for the engine's parallel loops.
//
// `run(n_tasks, fn)` calls fn(task, n_tasks) for task in [0, n_tasks) across the calling thread and
// the workers, and returns when every call has finished. Nothing is allocated per call (fn is passed
// by reference), so a decode step allocates nothing. One `run` at a time per pool (callers
// serialise; the engine owns its pool).
//
// Tasks are claimed one at a time from a shared counter, and `run` returns when the number of
// finished tasks reaches n_tasks: it waits only for the tasks that were claimed, never for a worker
// that took none (one that is descheduled by a competing process, say) — the calling thread takes
// the tasks left itself. Waiting threads spin briefly, then sleep: the workers between runs (decode
// steps arrive back to back), the caller for the last tasks still running on other threads.
//
// Stepping down: beside a competing process, two threads can be slower than one. The pool then
// runs every task on the calling thread, and tries its workers again now and then; when it does is
// StepDownPolicy's decision (base/step_down_policy.h). Results do not change: the same tasks run,
// only on fewer threads.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "base/step_down_policy.h"

namespace a3s::power {

class ThreadPool {
 public:
  // n_threads includes the calling thread; 0 → number of physical cores (at least 1). Throws
  // Error(codes::kResourceExhausted) when the workers cannot be started (those started are stopped).
  explicit ThreadPool(int n_threads = 0);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int size() const { return n_threads_; }

  // Runs fn(i, n_tasks) for every i in [0, n_tasks). Tasks are claimed dynamically.
  void run(int n_tasks, const std::function<void(int task, int n_tasks)>& fn);

  // Physical core count (hyper-threads excluded where the OS reports them), at least 1.
  static int physical_cores();

  // The threads a run started now would use: size(), or 1 while stepped down (above). Callers that
  // split work into tasks size them by this, so a stepped-down pool runs one task, not many small
  // ones.
  int active_threads() const { return policy_.next_run_solo() ? 1 : n_threads_; }

  // True while the mode in use is the calling thread alone (above); a trial may still run blocks on
  // every thread.
  bool stepped_down() const { return policy_.stepped_down(); }

  // Tests: while held, the workers claim no task (as if they were never scheduled), so a test can
  // show that run() finishes on the calling thread alone.
  void hold_workers_for_testing(bool held);
  // Tests: turns stepping down off (a test of the claim protocol wants every run parallel).
  void set_step_down_for_testing(bool enabled) { step_down_enabled_ = enabled; }

 private:
  // The claim word: n_tasks of the current run in the high 32 bits, the next unclaimed task in the
  // low 32. A claim is one compare-and-swap that increments the low half while it is below the high
  // half, so a thread that read the word of an earlier run can only claim a task of the run the word
  // now describes, and reads fn_ after its claim (fn_ cannot change until that task has finished).
  static constexpr uint64_t kLow = 0xffffffffu;
  static bool claimable(uint64_t word) { return (word & kLow) < (word >> 32); }

  void worker_loop();
  // Runs tasks until none is left to claim (or, for a worker, held); returns how many it ran.
  int claim_and_run(bool worker);
  // One run on all threads, or on the calling thread alone while stepped down. Returns whether a
  // run on all threads went without the workers' help (they took no task, or were late:
  // thread_pool.cpp).
  bool run_in_mode(int n_tasks, const std::function<void(int, int)>& fn);
  void shutdown() noexcept;  // stops and joins every worker

  int n_threads_;
  std::vector<std::thread> workers_;
  std::mutex mu_;
  std::condition_variable work_cv_;  // workers: a task can be claimed, or stop
  std::condition_variable done_cv_;  // caller: the last task finished
  std::atomic<uint64_t> claim_{0};
  std::atomic<const std::function<void(int, int)>*> fn_{nullptr};
  std::atomic<int> done_{0};                 // tasks of the current run finished
  std::atomic<bool> caller_sleeping_{false};  // the caller waits on done_cv_
  std::atomic<bool> held_{false};
  std::atomic<bool> stop_{false};

  // Stepping down; touched by the calling thread only (one run at a time).
  bool step_down_enabled_ = true;
  StepDownPolicy policy_;
};

}  // namespace a3s::power
