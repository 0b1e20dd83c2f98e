// The worker pool: every task runs once, and a pool whose threads cannot all be started fails with a
// clear error after stopping the ones that did start (no hang, no std::terminate).
#include <gtest/gtest.h>

#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
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
