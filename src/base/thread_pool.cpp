#include "base/thread_pool.h"

#include "a3s/power/error.h"

#include <chrono>
#include <exception>
#include <fstream>
#include <set>
#include <string>
#include <utility>

namespace a3s::power {

namespace {

// A run on all threads went without the workers' help when they took no task (asleep, or not
// scheduled in time), or were late: the caller waited for one longer than kLate and than it worked
// itself (base/step_down_policy.h counts these runs).
constexpr std::chrono::microseconds kLate{100};

}  // namespace

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
  }
  work_cv_.notify_all();
  for (auto& t : workers_) t.join();
  workers_.clear();
}

void ThreadPool::hold_workers_for_testing(bool held) {
  {
    std::lock_guard<std::mutex> lk(mu_);
    held_ = held;
  }
  work_cv_.notify_all();
}

namespace {

inline void cpu_relax() {
#if defined(__x86_64__)
  __builtin_ia32_pause();
#endif
}

// Spins while `waiting()` holds, for at most `limit`; returns false when it still holds then. The
// clock is read every 64 iterations (a pause lasts from a few to ~150 cycles, depending on the core).
template <class Pred>
bool spin_while(Pred waiting, std::chrono::microseconds limit) {
  const auto until = std::chrono::steady_clock::now() + limit;
  for (unsigned i = 1;; ++i) {
    if (!waiting()) return true;
    cpu_relax();
    if ((i & 63) == 0 && std::chrono::steady_clock::now() >= until) return !waiting();
  }
}

// A worker spins this long for the next run before it sleeps: the runs of one forward pass arrive
// back to back, and a sleeper that is woken is scheduled ahead of a busy process sharing its core,
// where a spinner uses up its share (with 1 ms of spinning, two threads decoded 0.7× as fast as one
// next to a busy loop; with 10 µs, as fast or faster, and no slower without the load:
// docs/benchmarks.md). The caller spins this long for the tasks still running elsewhere before it
// sleeps, short so that its core is free soon for a worker the scheduler has to move there.
constexpr std::chrono::microseconds kWorkerSpin{10};
constexpr std::chrono::microseconds kCallerSpin{50};

}  // namespace

int ThreadPool::claim_and_run(bool worker) {
  int ran = 0;
  uint64_t w = claim_.load(std::memory_order_acquire);
  while (claimable(w)) {
    if (worker && held_.load(std::memory_order_relaxed)) return ran;
    if (!claim_.compare_exchange_weak(w, w + 1, std::memory_order_acq_rel, std::memory_order_acquire)) continue;
    const int task = static_cast<int>(w & kLow);
    const int n = static_cast<int>(w >> 32);
    (*fn_.load(std::memory_order_relaxed))(task, n);
    ++ran;
    // The last task wakes the caller if it sleeps (seq_cst on both sides: either the caller sees
    // the count, or this thread sees the flag).
    if (done_.fetch_add(1, std::memory_order_seq_cst) + 1 == n && caller_sleeping_.load(std::memory_order_seq_cst)) {
      std::lock_guard<std::mutex> lk(mu_);
      done_cv_.notify_one();
    }
    w = claim_.load(std::memory_order_acquire);
  }
  return ran;
}

void ThreadPool::worker_loop() {
  const auto ready = [this] {
    return stop_.load(std::memory_order_acquire) ||
           (claimable(claim_.load(std::memory_order_acquire)) && !held_.load(std::memory_order_relaxed));
  };
  for (;;) {
    if (!spin_while([&] { return !ready(); }, kWorkerSpin)) {
      std::unique_lock<std::mutex> lk(mu_);
      work_cv_.wait(lk, ready);
    }
    if (stop_.load(std::memory_order_acquire)) return;
    claim_and_run(true);
  }
}

void ThreadPool::run(int n_tasks, const std::function<void(int, int)>& fn) {
  if (n_tasks <= 0) return;
  if (workers_.empty() || !step_down_enabled_) {
    run_in_mode(n_tasks, fn);
    return;
  }
  // Only a trial's runs are timed (the clock stays off the hot path otherwise).
  const bool timed = policy_.timing();
  const auto start = timed ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{};
  const bool unhelped = run_in_mode(n_tasks, fn);
  policy_.record(timed ? std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count() : 0.0,
          unhelped);
}

bool ThreadPool::run_in_mode(int n_tasks, const std::function<void(int, int)>& fn) {
  if (workers_.empty() || n_tasks == 1 || active_threads() == 1) {
    for (int i = 0; i < n_tasks; ++i) fn(i, n_tasks);
    return false;
  }
  const auto start = std::chrono::steady_clock::now();
  // Every task of the previous run has finished, so no thread reads fn_ or counts into done_ now.
  fn_.store(&fn, std::memory_order_relaxed);
  done_.store(0, std::memory_order_relaxed);
  {
    std::lock_guard<std::mutex> lk(mu_);
    claim_.store(static_cast<uint64_t>(n_tasks) << 32, std::memory_order_release);
  }
  work_cv_.notify_all();
  if (claim_and_run(false) == n_tasks) return true;  // the workers took no task
  // Every task is claimed; wait for those still running on workers, and for no worker else.
  const auto running = [&] { return done_.load(std::memory_order_seq_cst) != n_tasks; };
  if (spin_while(running, kCallerSpin)) return false;
  const auto caller_done = std::chrono::steady_clock::now();
  {
    std::unique_lock<std::mutex> lk(mu_);
    caller_sleeping_.store(true, std::memory_order_seq_cst);
    done_cv_.wait(lk, [&] { return !running(); });
    caller_sleeping_.store(false, std::memory_order_relaxed);
  }
  // Late: the caller waited longer than kLate and than it worked itself (a worker descheduled while
  // it held a task, or scheduled late).
  const auto waited = std::chrono::steady_clock::now() - caller_done;
  return waited > kLate && waited > caller_done - start;
}

}  // namespace a3s::power
