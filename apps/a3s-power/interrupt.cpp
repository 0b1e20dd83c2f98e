#include "a3s-power/interrupt.h"

namespace a3s::power::client {
namespace {

std::atomic<bool> g_interrupted{false};
static_assert(std::atomic<bool>::is_always_lock_free, "the flag is set from a signal handler");

extern "C" void on_sigint(int) {
  g_interrupted.store(true);
}

}  // namespace

std::atomic<bool>& interrupt_flag() {
  return g_interrupted;
}

InterruptScope::InterruptScope() {
  struct sigaction sa {};
  sa.sa_handler = on_sigint;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // no SA_RESTART: a blocking read returns EINTR
  installed_ = sigaction(SIGINT, &sa, &previous_) == 0;
  g_interrupted.store(false);
}

InterruptScope::~InterruptScope() {
  if (installed_) sigaction(SIGINT, &previous_, nullptr);
}

}  // namespace a3s::power::client
