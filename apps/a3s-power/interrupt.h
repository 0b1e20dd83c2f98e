// Ctrl+C in an interactive session: while an InterruptScope is alive, SIGINT does not end the
// process but raises interrupt_flag() — a running generation stops at its next step and a pending
// read of the next line returns LineReader::Status::Interrupted. The previous SIGINT disposition is
// restored when the scope ends. The handler is installed without SA_RESTART so that a blocking
// read(2) returns EINTR.
#pragma once

#include <atomic>
#include <csignal>

namespace a3s::power::client {

std::atomic<bool>& interrupt_flag();

class InterruptScope {
 public:
  InterruptScope();
  ~InterruptScope();
  InterruptScope(const InterruptScope&) = delete;
  InterruptScope& operator=(const InterruptScope&) = delete;

 private:
  struct sigaction previous_ {};
  bool installed_ = false;
};

}  // namespace a3s::power::client
