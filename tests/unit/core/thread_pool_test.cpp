// The worker pool: every task runs once, and a pool whose threads cannot all be started fails with a
// clear error after stopping the ones that did start (no hang, no std::terminate).
#include <gtest/gtest.h>

#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <vector>

#include "a3s/power/error.h"
#include "core/thread_pool.h"

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

TEST(ThreadPoolDeathTest, ThreadsThatCannotStartAreAResourceErrorNotAHang) {
  // In a child process with little address space, 500 threads (8 MiB of stack each) cannot all start.
  EXPECT_EXIT(
      {
        rlimit limit{};
        getrlimit(RLIMIT_AS, &limit);
        limit.rlim_cur = rlim_t{512} << 20;
        setrlimit(RLIMIT_AS, &limit);
        try {
          ThreadPool pool(500);
        } catch (const Error& e) {
          const bool clear = e.code() == std::string(codes::kResourceExhausted) &&
                             std::string(e.what()).find("cannot start 499 worker threads") != std::string::npos;
          _exit(clear ? 3 : 4);
        }
        _exit(5);
      },
      testing::ExitedWithCode(3), "");
}

}  // namespace
}  // namespace a3s::power
