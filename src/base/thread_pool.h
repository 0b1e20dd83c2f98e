// Persistent worker pool for the engine's parallel loops.
//
// `run(n_tasks, fn)` calls fn(task, n_tasks) for task in [0, n_tasks) across the calling thread and
// the workers, and returns when every call has finished. Workers spin briefly, then sleep on a
// condition variable; nothing is allocated per call (fn is passed by reference), so a decode step
// allocates nothing. One `run` at a time per pool (callers serialise; the engine owns its pool).
#pragma once

#include <atomic>
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

 private:
  void worker_loop();
  void do_tasks();
  void shutdown() noexcept;  // stops and joins every worker

  int n_threads_;
  std::vector<std::thread> workers_;
  std::mutex mu_;
  std::condition_variable cv_;
  const std::function<void(int, int)>* fn_ = nullptr;
  int n_tasks_ = 0;
  std::atomic<int> next_task_{0};
  std::atomic<int> pending_{0};
  std::atomic<uint64_t> generation_{0};
  std::atomic<bool> stop_{false};
};

}  // namespace a3s::power
