// The worker pool: every task runs once, a run waits only for the tasks that were claimed (never for
// a worker that took none), a pool whose workers are late steps down to the calling thread and
// probes again later, and a pool whose threads cannot all be started fails with a clear error
// after stopping the ones that did start (no hang, no std::terminate).
#include <gtest/gtest.h>

#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>
#include <fstream>
#include <string>
#include <vector>

#include "a3s/power/error.h"
#include "base/thread_pool.h"

namespace a3s::power {
namespace {

TEST(ThreadPool, RunsEveryTaskOnce) {
  ThreadPool pool(3);
  EXPECT_EQ(pool.size(), 3);
  std::vector<std::atomic<int>> hits(100);
  const std::function<void(int, int)> fn = [&](int task, int n) {
    EXPECT_EQ(n, 100);
    hits[static_cast<size_t>(task)].fetch_add(1);
  };
  for (int round = 0; round < 3; ++round) pool.run(100, fn);
  for (const auto& h : hits) EXPECT_EQ(h.load(), 3);
}

TEST(ThreadPool, ARunDoesNotWaitForWorkersThatTookNoTask) {
  // Held workers behave like workers the scheduler never runs: the calling thread takes every task
  // and the run returns (the former join over every worker waited for them forever).
  ThreadPool pool(4);
  pool.set_step_down_for_testing(false);  // runs without the workers' help would start a trial
  pool.hold_workers_for_testing(true);
  std::mutex mu;
  std::set<std::thread::id> threads;
  std::vector<std::atomic<int>> hits(64);
  const std::function<void(int, int)> fn = [&](int task, int) {
    hits[static_cast<size_t>(task)].fetch_add(1);
    std::lock_guard<std::mutex> lk(mu);
    threads.insert(std::this_thread::get_id());
  };
  for (int round = 0; round < 5; ++round) pool.run(64, fn);
  EXPECT_EQ(threads, std::set<std::thread::id>{std::this_thread::get_id()});
  for (const auto& h : hits) EXPECT_EQ(h.load(), 5);

  // Released, the workers take tasks again.
  pool.hold_workers_for_testing(false);
  threads.clear();
  const std::function<void(int, int)> slow = [&](int task, int) {
    hits[static_cast<size_t>(task)].fetch_add(1);
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    std::lock_guard<std::mutex> lk(mu);
    threads.insert(std::this_thread::get_id());
  };
  pool.run(64, slow);
  EXPECT_GT(threads.size(), 1u);
  for (const auto& h : hits) EXPECT_EQ(h.load(), 6);
}

TEST(ThreadPool, ACallerThatSleepsIsWokenByTheLastTask) {
  // One long task per run: the caller finishes its share, spins, then sleeps until a worker ends
  // the last task. A lost wake-up would hang the test.
  ThreadPool pool(3);
  pool.set_step_down_for_testing(false);  // the runs are slower than one thread: keep them parallel
  std::atomic<int> total{0};
  const std::function<void(int, int)> fn = [&](int task, int) {
    if (task == 0) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    total.fetch_add(1);
  };
  for (int round = 0; round < 40; ++round) {
    pool.run(3, fn);
    EXPECT_EQ(total.load(), 3 * (round + 1));
  }
}

TEST(ThreadPool, BackToBackRunsOfChangingSizesRunEachTaskOnceInItsOwnRun) {
  // Workers that read the claim word of an earlier run can only claim a task of the current one:
  // each run's tasks see their own run's function and count, exactly once each.
  ThreadPool pool(4);
  pool.set_step_down_for_testing(false);  // every run parallel, however small its tasks
  for (int round = 0; round < 20000; ++round) {
    const int n = 2 + round % 15;
    std::vector<std::atomic<int>> hits(static_cast<size_t>(n));
    std::atomic<int> wrong{0};
    const std::function<void(int, int)> fn = [&](int task, int n_tasks) {
      if (n_tasks != n || task < 0 || task >= n) {
        wrong.fetch_add(1);
        return;
      }
      hits[static_cast<size_t>(task)].fetch_add(1);
    };
    pool.run(n, fn);
    ASSERT_EQ(wrong.load(), 0) << "round " << round;
    for (int i = 0; i < n; ++i) ASSERT_EQ(hits[static_cast<size_t>(i)].load(), 1) << "round " << round << " task " << i;
  }
}

// Keeps the calling thread busy for `d` (a task that computes, unlike one that sleeps).
void busy_for(std::chrono::microseconds d) {
  const auto until = std::chrono::steady_clock::now() + d;
  while (std::chrono::steady_clock::now() < until) {
  }
}

TEST(ThreadPool, AFreshPoolUsesEveryThread) {
  ThreadPool pool(3);
  EXPECT_FALSE(pool.stepped_down());
  EXPECT_EQ(pool.active_threads(), 3);
}

TEST(ThreadPool, WorkersLateWithTheirTasksMakeThePoolStepDownThenTryThemAgain) {
  // A task that runs on a worker takes 1 ms (as if the worker were descheduled while it held it),
  // one on the calling thread 20 µs: the runs are late, a trial finds the calling thread alone
  // faster, and the pool steps down; it then runs every task on the calling thread, until a later
  // trial gives the workers tasks again. Every task runs once throughout. How long trials last and
  // how far apart they are is the policy's, tested on given run times (step_down_policy_test.cpp);
  // here only what holds on any schedule is asserted.
  ThreadPool pool(2);
  const auto caller = std::this_thread::get_id();
  std::atomic<bool> slow_workers{true};
  std::atomic<int> on_workers{0};
  std::atomic<int> ran{0};
  const std::function<void(int, int)> fn = [&](int, int) {
    ran.fetch_add(1);
    if (std::this_thread::get_id() != caller) {
      on_workers.fetch_add(1);
      if (slow_workers.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
      return;
    }
    busy_for(std::chrono::microseconds(20));
  };
  int runs = 0;
  for (; runs < 20000 && !pool.stepped_down(); ++runs) pool.run(8, fn);
  ASSERT_TRUE(pool.stepped_down()) << "after " << runs << " runs with late workers";
  EXPECT_GT(on_workers.load(), 0);
  EXPECT_EQ(ran.load(), 8 * runs);
  EXPECT_EQ(pool.active_threads(), 1);

  // Stepped down, and the next trial kMinTrialInterval runs away: the workers get no task.
  on_workers.store(0);
  ran.store(0);
  for (int i = 0; i < StepDownPolicy::kMinTrialInterval - 1; ++i) pool.run(8, fn);
  EXPECT_EQ(on_workers.load(), 0);
  EXPECT_EQ(ran.load(), 8 * (StepDownPolicy::kMinTrialInterval - 1));
  EXPECT_TRUE(pool.stepped_down());

  // A later trial gives the workers tasks again.
  slow_workers.store(false);
  ran.store(0);
  runs = 0;
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  for (; on_workers.load() == 0 && std::chrono::steady_clock::now() < until; ++runs) pool.run(8, fn);
  EXPECT_GT(on_workers.load(), 0) << "no trial gave the workers a task again";
  EXPECT_EQ(ran.load(), 8 * runs);
}

TEST(ThreadPool, WithSteppingDownOffThePoolStaysParallel) {
  ThreadPool pool(2);
  pool.set_step_down_for_testing(false);
  const auto caller = std::this_thread::get_id();
  std::atomic<int> on_workers{0};
  const std::function<void(int, int)> fn = [&](int, int) {
    if (std::this_thread::get_id() != caller) {
      on_workers.fetch_add(1);
      std::this_thread::sleep_for(std::chrono::milliseconds(3));
      return;
    }
    busy_for(std::chrono::microseconds(20));
  };
  for (int i = 0; i < 300; ++i) pool.run(8, fn);
  EXPECT_GT(on_workers.load(), 0);  // the workers were late with tasks …
  EXPECT_FALSE(pool.stepped_down());  // … and the pool did not step down
  EXPECT_EQ(pool.active_threads(), 2);
}

// The process's address space now (VmSize), in bytes.
uint64_t address_space_bytes() {
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("VmSize:", 0) == 0) return std::stoull(line.substr(7)) * 1024;
  }
  return 0;
}

TEST(ThreadPoolDeathTest, ThreadsThatCannotStartAreAResourceErrorNotAHang) {
  // In a child process whose address space may grow by 256 MiB only, 500 threads (8 MiB of stack
  // each) cannot all start. The limit is relative to what the process already maps, so the test
  // holds under AddressSanitizer too (its shadow memory is terabytes of reserved address space).
  EXPECT_EXIT(
      {
        const uint64_t now = address_space_bytes();
        if (now == 0) _exit(6);
        rlimit limit{};
        getrlimit(RLIMIT_AS, &limit);
        limit.rlim_cur = static_cast<rlim_t>(now + (uint64_t{256} << 20));
        setrlimit(RLIMIT_AS, &limit);
        try {
          ThreadPool pool(500);
        } catch (const Error& e) {
          const bool clear = e.kind() == codes::kResourceExhausted &&
                             std::string(e.what()).find("cannot start 499 worker threads") != std::string::npos;
          _exit(clear ? 3 : 4);
        }
        _exit(5);
      },
      testing::ExitedWithCode(3), "");
}

}  // namespace
}  // namespace a3s::power
