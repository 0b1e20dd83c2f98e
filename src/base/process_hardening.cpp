#include "base/process_hardening.h"

#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "a3s/power/error.h"

namespace a3s::power {

void disable_core_dumps() {
  const rlimit none{0, 0};
  if (::setrlimit(RLIMIT_CORE, &none) != 0) {
    throw Error(codes::kInternal, std::string("cannot disable core dumps: setrlimit(RLIMIT_CORE): ") +
                                      std::strerror(errno));
  }
  if (::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) {
    throw Error(codes::kInternal, std::string("cannot disable core dumps: prctl(PR_SET_DUMPABLE): ") +
                                      std::strerror(errno));
  }
}

namespace {
int (*g_mlockall)(int) = nullptr;

std::string memlock_soft_limit() {
  rlimit rl{};
  if (::getrlimit(RLIMIT_MEMLOCK, &rl) != 0) return "unknown";
  if (rl.rlim_cur == RLIM_INFINITY) return "unlimited";
  return std::to_string(rl.rlim_cur) + " bytes";
}
}  // namespace

void set_mlockall_for_testing(int (*mlockall_fn)(int)) { g_mlockall = mlockall_fn; }

std::string lock_process_memory() {
  const int flags = MCL_CURRENT | MCL_FUTURE | MCL_ONFAULT;
  const int rc = g_mlockall ? g_mlockall(flags) : ::mlockall(flags);
  if (rc == 0) return {};
  const int err = errno;
  return std::string("mlockall failed (") + std::strerror(err) + "; RLIMIT_MEMLOCK " + memlock_soft_limit() +
         "): raise RLIMIT_MEMLOCK (ulimit -l, LimitMEMLOCK=) or grant CAP_IPC_LOCK";
}

}  // namespace a3s::power
