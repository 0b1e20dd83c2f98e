#include "base/syscall.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>

namespace a3s::power {
namespace {

TEST(RetryOnEintr, RetriesInterruptedCallsUntilOneCompletes) {
  int calls = 0;
  const ssize_t r = retry_on_eintr([&]() -> ssize_t {
    if (++calls < 4) {
      errno = EINTR;  // a signal interrupted the call
      return -1;
    }
    return 42;
  });
  EXPECT_EQ(r, 42);
  EXPECT_EQ(calls, 4);
}

TEST(RetryOnEintr, ReturnsOtherFailuresWithTheirErrno) {
  int calls = 0;
  const int r = retry_on_eintr([&] {
    ++calls;
    errno = EBADF;
    return -1;
  });
  EXPECT_EQ(r, -1);
  EXPECT_EQ(errno, EBADF);
  EXPECT_EQ(calls, 1);
}

TEST(RetryOnEintr, ZeroAndSuccessReturnAtOnce) {
  int calls = 0;
  errno = EINTR;  // stale errno from earlier must not cause a retry of a successful call
  EXPECT_EQ(retry_on_eintr([&] {
              ++calls;
              return 0;
            }),
            0);
  EXPECT_EQ(calls, 1);
}

TEST(RetryOnEintr, WrapsARealSystemCall) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const char byte = 'x';
  EXPECT_EQ(retry_on_eintr([&] { return ::write(fds[1], &byte, 1); }), 1);
  char got = 0;
  EXPECT_EQ(retry_on_eintr([&] { return ::read(fds[0], &got, 1); }), 1);
  EXPECT_EQ(got, 'x');
  ::close(fds[0]);
  ::close(fds[1]);
  EXPECT_EQ(retry_on_eintr([&] { return ::close(fds[0]); }), -1);
  EXPECT_EQ(errno, EBADF);
}

}  // namespace
}  // namespace a3s::power
