#include "base/thread_pool.h"

#include "a3s/power/error.h"

#include <exception>
#include <fstream>
#include <set>
#include <string>
#include <utility>

namespace a3s::power {

int ThreadPool::physical_cores() {
  std::ifstream f("/proc/cpuinfo");
  std::set<std::pair<std::string, std::string>> cores;
  std::string line, phys, core;
  while (std::getline(f, line)) {
    if (line.rfind("physical id", 0) == 0) phys = line.substr(line.find(':') + 1);
    if (line.rfind("core id", 0) == 0) {
      core = line.substr(line.find(':') + 1);
      cores.emplace(phys, core);
    }
  }
  int n = static_cast<int>(cores.size());
  if (n <= 0) n = static_cast<int>(std::thread::hardware_concurrency());
  return n > 0 ? n : 1;
}

ThreadPool::ThreadPool(int n_threads) {
  n_threads_ = n_threads > 0 ? n_threads : physical_cores();
  try {
    workers_.reserve(static_cast<size_t>(n_threads_ - 1));
    for (int i = 1; i < n_threads_; ++i) workers_.emplace_back([this] { worker_loop(); });
  } catch (const std::exception& e) {
    // The workers already started must stop before their std::thread objects are destroyed.
    const size_t started = workers_.size();
    shutdown();
    throw Error(codes::kResourceExhausted, "cannot start " + std::to_string(n_threads_ - 1) + " worker threads (" +
                                               std::to_string(started) + " started): " + e.what());
  }
}

ThreadPool::~ThreadPool() {
  shutdown();
}

void ThreadPool::shutdown() noexcept {
  {
    std::lock_guard<std::mutex> lk(mu_);
    stop_ = true;
    generation_.fetch_add(1);
  }
  cv_.notify_all();
  for (auto& t : workers_) t.join();
  workers_.clear();
}

void ThreadPool::do_tasks() {
  for (;;) {
    int i = next_task_.fetch_add(1, std::memory_order_relaxed);
    if (i >= n_tasks_) break;
    (*fn_)(i, n_tasks_);
  }
  pending_.fetch_sub(1, std::memory_order_acq_rel);
}

void ThreadPool::worker_loop() {
  uint64_t seen = 0;
  for (;;) {
    // Spin a little before sleeping: decode steps arrive back to back.
    bool woke = false;
    for (int spin = 0; spin < 20000; ++spin) {
      if (generation_.load(std::memory_order_acquire) != seen) {
        woke = true;
        break;
      }
#if defined(__x86_64__)
      __builtin_ia32_pause();
#endif
    }
    if (!woke) {
      std::unique_lock<std::mutex> lk(mu_);
      cv_.wait(lk, [&] { return generation_.load() != seen; });
    }
    seen = generation_.load(std::memory_order_acquire);
    if (stop_) return;
    do_tasks();
  }
}

void ThreadPool::run(int n_tasks, const std::function<void(int, int)>& fn) {
  if (n_tasks <= 0) return;
  if (workers_.empty() || n_tasks == 1) {
    for (int i = 0; i < n_tasks; ++i) fn(i, n_tasks);
    return;
  }
  {
    std::lock_guard<std::mutex> lk(mu_);
    fn_ = &fn;
    n_tasks_ = n_tasks;
    next_task_.store(0, std::memory_order_relaxed);
    pending_.store(static_cast<int>(workers_.size()) + 1, std::memory_order_relaxed);
    generation_.fetch_add(1, std::memory_order_release);
  }
  cv_.notify_all();
  do_tasks();
  while (pending_.load(std::memory_order_acquire) != 0) {
#if defined(__x86_64__)
    __builtin_ia32_pause();
#endif
  }
}

}  // namespace a3s::power
