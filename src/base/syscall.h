// Retrying a system call that a signal interrupted.
#pragma once

#include <cerrno>
#include <utility>

namespace a3s::power {

// Calls f() until it returns something other than -1 with errno == EINTR, and returns that result.
// Input: any callable returning an integer in the POSIX style (-1 and errno on failure: read, write,
// pread, ioctl, flock, …). Output: f's first result that is not an interrupted call; on another
// failure that is -1, with errno as f left it. Never throws by itself.
template <class F>
auto retry_on_eintr(F&& f) -> decltype(f()) {
  for (;;) {
    auto r = f();
    if (!(r == -1 && errno == EINTR)) return r;
  }
}

}  // namespace a3s::power
