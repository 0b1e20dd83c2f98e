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
// Stepping down: a worker that shares its core with a competing process can be descheduled for a
// whole time slice (milliseconds) while it holds a claimed task, and the run waits for that task;
// two threads are then slower than one; a worker that cannot run in time takes no task, and waking
// it each run costs a system call. The pool therefore runs trials when its workers failed to help
// in most runs (and, while stepped down, now and then): blocks of runs alternate between the mode
// in use (all threads, or the calling thread alone) and the other mode, beginning and ending in the
// mode in use, so that work that changes steadily (a growing KV cache) weighs on both alike; the
// mode in use after the trial is all threads only when their mean wall time per run was clearly
// (15 %) below the calling thread's alone — in a near tie beside a competing load, one thread is the
// steadier choice. A trial ends early once a block in the other mode was far (1.5×) slower per run
// than the mode in use. Trials are kMinTrialInterval runs apart after a change, twice as far each
// time the mode in use stays, so that where the workers help, trials are rare. Results do not
// change: the same tasks run, only on fewer threads.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

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
  int active_threads() const { return solo_ != probing_ ? 1 : n_threads_; }

  // True while the mode in use is the calling thread alone (above); a trial may still run blocks on
  // every thread.
  bool stepped_down() const { return solo_; }

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

  static constexpr int kMinTrialInterval = 1024;  // runs (stepping down, above)

  void worker_loop();
  // Runs tasks until none is left to claim (or, for a worker, held); returns how many it ran.
  int claim_and_run(bool worker);
  // One run on all threads, or on the calling thread alone while stepped down. Returns whether a
  // run on all threads went without the workers' help (they took no task, or were late:
  // thread_pool.cpp).
  bool run_in_mode(int n_tasks, const std::function<void(int, int)>& fn);
  // Adds a run's wall time to the trial under way, ends it when it is complete, or starts one.
  void account(double run_ns, bool unhelped);
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
  bool solo_ = false;     // the mode in use is the calling thread alone
  bool probing_ = false;   // this block of a trial runs in the other mode
  bool in_trial_ = false;
  int trial_interval_ = kMinTrialInterval;
  int runs_since_trial_ = 0;
  int unhelped_runs_ = 0;  // since the last trial
  int block_ = 0;            // block of the trial: even in the mode in use, odd in the other
  int block_runs_ = 0;
  double trial_ns_[2] = {0, 0};  // wall time of the trial's runs: [0] mode in use, [1] other mode
  int trial_runs_[2] = {0, 0};
};

}  // namespace a3s::power
